import Foundation

/// Fills an unmanaged object from a loosely typed value, as Realm's `Object(value:)` and
/// `create(_:value:)` accept: a dictionary of property values, an array of values in property
/// order, or another object.
enum ObjectValueFiller {
    /// Fills `object` and returns the names of the properties the value gave.
    ///
    /// Traps on a value of the wrong shape or type, as Realm's key-value coding raises.
    @discardableResult
    static func fill(_ object: ObjectBase, from value: Any) -> Set<String> {
        let info = ClassInfo.known(type(of: object))
        let stored = info.properties.filter { !$0.isLinkingObjects }
        var given = Set<String>()
        func set(_ property: PropertyInfo, _ newValue: Any) {
            guard property.accessor.setUnmanaged(at: object.address(of: property), value: newValue) else {
                preconditionFailure("Invalid value '\(newValue)' to initialize object of type '\(info.className)': "
                                    + "property '\(property.name)' has the wrong type")
            }
            given.insert(property.name)
        }
        switch value {
        case let dictionary as [String: Any]:
            for (name, newValue) in dictionary {
                guard let index = info.propertyIndex[name] else {
                    preconditionFailure("Invalid property name: property '\(name)' not found in object of type "
                                        + "'\(info.className)'")
                }
                set(info.properties[index], newValue)
            }
        case let array as [Any]:
            precondition(array.count == stored.count,
                         "Invalid array input: number of values (\(array.count)) does not match number of "
                             + "properties (\(stored.count)) of '\(info.className)'")
            for (property, newValue) in zip(stored, array) { set(property, newValue) }
        case let source as ObjectBase:
            for property in stored {
                if let newValue = source[property.name] { set(property, newValue) }
            }
        default:
            preconditionFailure("Invalid value '\(value)' to initialize object of type '\(info.className)': "
                                + "expected a dictionary, an array or an object")
        }
        return given
    }
}
