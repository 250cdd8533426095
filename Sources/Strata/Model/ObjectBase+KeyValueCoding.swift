import Foundation

/// Key-value coding, as Realm Swift's objects inherit it from `NSObject`: read and write
/// properties by name.
extension ObjectBase {
    /// The value of the property named `key`, as Realm Swift's `value(forKey:)`: nil for an
    /// optional property holding nil.
    ///
    /// A name that is not a property of the class traps with Realm's message ("Invalid property
    /// name"), as Realm raises.
    public func value(forKey key: String) -> Any? {
        let info = ClassInfo.known(type(of: self))
        guard info.propertyIndex[key] != nil else {
            preconditionFailure("Invalid property name '\(key)' for class '\(info.className)'.")
        }
        return self[key].flatMap(KeyValueCoding.flattened)
    }

    /// The value at a dotted key path (`"owner.name"`), following links; nil where a link on the
    /// way is nil. See ``value(forKey:)``.
    public func value(forKeyPath keyPath: String) -> Any? {
        var current: Any? = self
        for key in keyPath.split(separator: ".", omittingEmptySubsequences: false) {
            guard let value = current else { return nil }
            guard let object = value as? ObjectBase else {
                preconditionFailure("Invalid key path '\(keyPath)': '\(key)' follows a value that is not an object.")
            }
            current = object.value(forKey: String(key))
        }
        return current
    }

    /// Sets the property named `key`, as Realm Swift's `setValue(_:forKey:)`; nil clears an
    /// optional property.
    ///
    /// The value is converted as ``Object/init(value:)`` converts (a dictionary for a linked
    /// object, an array for a list, an `NSNumber` for a number). On a managed object this needs
    /// a write transaction. An unknown name, or a value of the wrong type, traps with Realm's
    /// message, as Realm raises; so does changing a managed object's primary key.
    public func setValue(_ value: Any?, forKey key: String) {
        self[key] = value
    }

    /// Sets the property at a dotted key path (`"owner.name"`), as `NSObject`'s
    /// `setValue(_:forKeyPath:)`: follows the links before the last name and sets it on the
    /// object reached. See ``setValue(_:forKey:)``.
    ///
    /// A nil link on the way, or a key path through a value that is not an object, traps with a
    /// message that names the key path.
    public func setValue(_ value: Any?, forKeyPath keyPath: String) {
        guard let dot = keyPath.lastIndex(of: ".") else {
            setValue(value, forKey: keyPath)
            return
        }
        let owner = String(keyPath[..<dot]), key = String(keyPath[keyPath.index(after: dot)...])
        guard let object = self.value(forKeyPath: owner) as? ObjectBase else {
            preconditionFailure("Invalid key path '\(keyPath)': '\(owner)' is not an object.")
        }
        object.setValue(value, forKey: key)
    }

    /// Sets several properties by name, as Realm Swift's `setValuesForKeys(_:)`; see
    /// ``setValue(_:forKey:)``.
    public func setValuesForKeys(_ keyedValues: [String: Any]) {
        for (key, value) in keyedValues { self[key] = value }
    }
}

/// Helpers shared by the key-value coding of objects and collections.
enum KeyValueCoding {
    /// `value` without the optional layers a type-erased read wraps around it: nil for an
    /// optional holding nil.
    static func flattened(_ value: Any) -> Any? {
        guard let optional = value as? any OptionalValue else { return value }
        return optional.wrappedAny.flatMap(flattened)
    }
}

/// An `Optional` seen through `Any`.
private protocol OptionalValue {
    var wrappedAny: Any? { get }
}

extension Optional: OptionalValue {
    fileprivate var wrappedAny: Any? { self.map { $0 as Any } }
}
