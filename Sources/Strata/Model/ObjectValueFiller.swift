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
        let info = ClassInfo.known(type(of: object))
        let stored = info.properties.filter { !$0.isLinkingObjects }
        var given = Set<String>()
        func set(_ property: PropertyInfo, _ newValue: Any) throws(Realm.Error) {
            guard property.accessor.setUnmanaged(at: object.address(of: property), value: newValue) else {
                throw invalidValue(newValue, for: property, of: info)
            }
            given.insert(property.name)
        }
        switch value {
        case let source as ObjectBase:
            for property in stored {
                if let newValue = source[property.name] { try set(property, newValue) }
            }
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
