import Foundation

/// Fills an unmanaged object from a loosely typed value, as Realm's `Object(value:)` and
/// `create(_:value:)` accept: a dictionary of property values (read by property name; keys that
/// are not properties are ignored), an array of values in property order (at most one per
/// property; the rest keep their defaults), or another object.
///
/// Values may be Swift values or what `JSONSerialization` produces (`NSNumber`, `NSString`,
/// `NSArray`, `NSDictionary`, `NSNull`); nested dictionaries and arrays fill linked and
/// embedded objects and collections.
enum ObjectValueFiller {
    /// Fills `object` and returns the names of the properties the value gave.
    ///
    /// - Throws: ``Realm/Error`` with code `invalidInput` (and Realm's message) for a value of
    ///   the wrong shape or type; `object` may then be partly filled.
    @discardableResult
    static func fill(_ object: ObjectBase, from value: Any) throws(Realm.Error) -> Set<String> {
        guard NestedFailure.current != nil else {
            // The outermost fill: nested fills (linked and embedded objects) record their error
            // here, so the message names the innermost property, as Realm's does.
            return try NestedFailure.$current.withValue(NestedFailure()) {
                Result { () throws(Realm.Error) in try fill(object, from: value) }
            }.get()
        }
        let info = ClassInfo.known(type(of: object))
        let stored = info.storedProperties
        var given = Set<String>()
        let failures = NestedFailure.current
        func set(_ property: PropertyInfo, _ newValue: Any) throws(Realm.Error) {
            // A nested error is only this property's cause when its conversion fails.
            defer { _ = failures?.take() }
            guard property.accessor.setUnmanaged(at: object.address(of: property), value: newValue) else {
                throw failures?.take() ?? invalidValue(newValue, for: property, of: info)
            }
            given.insert(property.name)
        }
        switch value {
        case let source as ObjectBase:
            // Every property, nil ones too: an update from an object sets them to nil, as in Realm.
            for property in stored { try set(property, source[property.name] as Any) }
        case let dictionary as [String: Any]:
            for property in stored {
                guard let newValue = dictionary[property.name] else { continue }
                try set(property, newValue)
            }
        case let array as [Any]:
            guard array.count <= stored.count else {
                throw Realm.Error(Realm.Error.invalidInput,
                                  "Invalid array input: more values (\(array.count)) than properties "
                                      + "(\(stored.count)).")
            }
            for (property, newValue) in zip(stored, array) { try set(property, newValue) }
        default:
            throw Realm.Error(Realm.Error.invalidInput,
                              "Invalid value '\(value)' to initialize object of type '\(info.className)': "
                                  + "missing key or property")
        }
        GivenKeys.current?.record(object, given)
        return given
    }

    /// Realm's message for a value that does not convert to a property's type.
    static func invalidValue(_ value: Any, for property: PropertyInfo, of info: ClassInfo) -> Realm.Error {
        Realm.Error(Realm.Error.invalidInput,
                    "Invalid value '\(value)' of type '\(type(of: value))' for '\(typeName(property))' property "
                        + "'\(info.className).\(property.name)'.")
    }

    /// The property's type as Realm's messages name it (`int?`, `array<string>`, `object`).
    static func typeName(_ property: PropertyInfo) -> String {
        var name = PropertyType(property.column).description
        if let className = property.objectClassName { name = className }
        if property.column.isOptional && property.column.objectType == nil { name += "?" }
        switch property.column.collection {
        case .single: return property.column.objectType == nil ? name : "object"
        case .list: return "array<\(name)>"
        case .set: return "set<\(name)>"
        case .dictionary: return "dictionary<string, \(name)>"
        }
    }
}

/// The error of a nested fill that failed inside a loosely typed conversion (which can only say
/// nil), kept for the enclosing fill to throw.
final class NestedFailure: @unchecked Sendable {
    // Safety: created by one outermost fill and used only on the thread running it; the
    // task-local carries it down the synchronous conversion, never to another thread.

    /// The failure box of the fill running on this thread, if any.
    @TaskLocal static var current: NestedFailure?

    private var error: Realm.Error?

    /// Keeps the first error recorded since the last ``take()``.
    func record(_ error: Realm.Error) {
        if self.error == nil { self.error = error }
    }

    /// The recorded error, clearing it.
    func take() -> Realm.Error? {
        defer { error = nil }
        return error
    }
}
