import StrataQuery
import Synchronization

/// Custom column names (`propertiesMapping()`): a mapped property is stored in the file's column
/// of another name, and every name the code gives (a query's key paths, a sort or distinct key)
/// is turned into column names before it reaches the engine.
///
/// Schemas without a mapping pay one atomic load per `Results` made: no query is rewritten.
enum ColumnMapping {
    /// Whether some class discovered in this process maps a property to another column name.
    private static let inUse = Atomic<Bool>(false)

    /// Applies `mapping` (property name → column name) to the properties of `className`.
    ///
    /// - Throws: ``Realm/Error`` with code `invalidSchema` when a key is not a `@Persisted`
    ///   property of the class, or when two properties would be stored under one name.
    static func apply(_ mapping: [String: String], to properties: inout [PropertyInfo], className: String) throws {
        guard !mapping.isEmpty else { return }
        for (name, columnName) in mapping.sorted(by: { $0.key < $1.key }) {
            guard let index = properties.firstIndex(where: { $0.name == name && !$0.isLinkingObjects }) else {
                throw Realm.Error(Realm.Error.invalidSchema, "'\(className).propertiesMapping()' maps '\(name)', "
                                  + "which is not a persisted property of '\(className)'")
            }
            properties[index].columnName = columnName
        }
        var seen: [String: String] = [:]
        for property in properties where !property.isLinkingObjects {
            if let other = seen.updateValue(property.name, forKey: property.columnName) {
                throw Realm.Error(Realm.Error.invalidSchema, "Properties '\(other)' and '\(property.name)' of "
                                  + "'\(className)' are both stored in the column '\(property.columnName)'")
            }
        }
    }

    /// Notes a discovered class: once one maps a property, queries are rewritten.
    static func register(_ info: ClassInfo) {
        if info.properties.contains(where: { $0.columnName != $0.name }) { inUse.store(true, ordering: .releasing) }
    }

    /// `query` with its key paths in column names, for objects of `className` (nil: the
    /// elements of a collection of primitives, whose key paths name no property) in `realm`,
    /// whose schema's classes say how properties are stored (two Swift classes may share a class
    /// name in different Realms, with different mappings).
    static func columnNames(of query: ParsedQuery, root className: String?, in realm: Realm) -> ParsedQuery {
        guard inUse.load(ordering: .acquiring), let className else { return query }
        let state = realm.state
        var classes: [String: ClassInfo] = [:]
        for info in state.schemaClasses + state.tableInfos.values.map(\.classInfo) { classes[info.className] = info }
        return query.renamingProperties(root: className, Naming(classes: classes))
    }

    /// The column names and link targets of the discovered classes.
    private struct Naming: PropertyNaming {
        let classes: [String: ClassInfo]

        func column(of property: String, in className: String) -> (column: String, target: String?)? {
            guard let info = classes[className], let index = info.propertyIndex[property] else { return nil }
            let described = info.properties[index]
            // A `LinkingObjects` property continues in its origin class.
            return (described.columnName, described.objectClassName)
        }
    }
}
