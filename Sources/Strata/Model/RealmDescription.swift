import Foundation

/// An object or collection that prints itself nested inside another, with a bound on how deep.
protocol DepthDescribable {
    /// The description, with `depth` levels of nesting left (none left: Realm's
    /// "<Maximum depth exceeded>").
    func description(depth: Int) -> String
}

/// How objects and collections print, in Realm's format: an object as its class name and each
/// property's value, nested objects and collections indented, collections as
/// `List<Dog> <0x…> (\n\t[0] …\n)`; at most five levels deep (so a cycle of objects prints, as
/// in Realm, instead of recursing forever) and at most 100 elements of a collection.
enum RealmDescription {
    static let maximumDepth = 5
    static let maximumElements = 100
    static let depthExceeded = "<Maximum depth exceeded>"

    /// A property value or collection element: nil as `(null)`, a `Bool` as `0`/`1`, `Data` as
    /// its bytes in hex, a `UUID` in capitals, objects and collections nested.
    static func value(_ value: Any?, depth: Int) -> String {
        guard let value = value.flatMap(KeyValueCoding.flattened), !(value is NSNull) else { return "(null)" }
        switch value {
        case let nested as any DepthDescribable: return nested.description(depth: depth)
        case let mixed as AnyRealmValue: return mixedValue(mixed, depth: depth)
        case let flag as Bool: return flag ? "1" : "0"
        case let data as Data: return "<" + data.prefix(1024).map { String(format: "%02x", $0) }.joined() + ">"
        case let uuid as UUID: return uuid.uuidString
        // What is stored: an enum's raw value, a custom type's persisted value.
        case let stored as any PersistableEnum: return Self.value(stored.rawValue, depth: depth)
        case let custom as any _CustomPersistable:
            return Self.value(custom.persistableValue, depth: depth)
        default: return "\(value)"
        }
    }

    private static func mixedValue(_ mixed: AnyRealmValue, depth: Int) -> String {
        let payload: Any? = switch mixed {
        case .none: nil
        case .int(let number): number
        case .bool(let flag): flag
        case .float(let number): number
        case .double(let number): number
        case .string(let string): string
        case .data(let data): data
        case .date(let date): date
        case .object(let object): object
        case .objectId(let id): id
        case .decimal128(let decimal): decimal
        case .uuid(let uuid): uuid
        case .list(let list): list
        case .dictionary(let map): map
        }
        return value(payload, depth: depth)
    }

    /// `ClassName {\n\tname = value;\n…}`.
    static func object(className: String, properties: [(name: String, value: Any?)], depth: Int) -> String {
        guard depth > 0 else { return depthExceeded }
        let lines = properties.map { property in
            "\t\(property.name) = \(indented(value(property.value, depth: depth - 1)));"
        }
        return "\(className) {\n" + lines.joined(separator: "\n") + "\n}"
    }

    /// `Kind<ElementType> <0xaddress> (\n\t[0] element,\n\t[1] element\n)`; a map's entries
    /// are labelled `[key]: `. Give at most ``maximumElements`` elements.
    static func collection(_ kind: String, elementType: String, identity: AnyObject,
                           elements: [(label: String, value: Any?)], count: Int, depth: Int) -> String {
        guard depth > 0 else { return depthExceeded }
        let address = String(UInt(bitPattern: ObjectIdentifier(identity).hashValue), radix: 16)
        let lines = elements.prefix(maximumElements).map { element in
            "\t\(element.label)\(indented(value(element.value, depth: depth - 1)))"
        }
        var text = "\(kind)<\(elementType)> <0x\(address)> (\n" + lines.joined(separator: ",\n")
        if count > maximumElements { text += "\n\t... \(count - maximumElements) objects skipped." }
        return text + "\n)"
    }

    /// Realm's name for a collection's element type: the class name of objects, else the type
    /// (`int`, `string`, `object id`, `mixed`).
    static func typeName<Element: _Persistable>(_: Element.Type) -> String {
        let column = Element._rlmColumn
        if let objectType = column.objectType {
            // A projection names its own class, not its root's; an optional object (a map's
            // values) its class.
            return Element.self is any ProjectionObservable.Type ? "\(Element.self)" : objectType.className()
        }
        return PropertyType(column).description
    }

    /// The first ``maximumElements`` elements of a sequence, labelled `[0] `, `[1] `, ….
    static func indexed<S: Sequence>(_ elements: S) -> [(label: String, value: Any?)] {
        elements.prefix(maximumElements).enumerated().map { ("[\($0.offset)] ", $0.element as Any?) }
    }

    private static func indented(_ text: String) -> String {
        text.replacingOccurrences(of: "\n", with: "\n\t")
    }
}

extension List: DepthDescribable {}
extension MutableSet: DepthDescribable {}
extension Map: DepthDescribable {}
extension LinkingObjects: DepthDescribable {}
extension Results: DepthDescribable {}
