/// Realm Swift's declarations from before `@Persisted` (`override class func primaryKey()`,
/// `indexedProperties()`, `ignoredProperties()`, `let items = List<T>()`): the class methods are
/// honoured where they name `@Persisted` properties; the rest, which needs the Objective-C runtime,
/// is reported at schema discovery with the `@Persisted` spelling instead of being silently not
/// stored.
struct LegacyDeclarations {
    /// Set while discovery calls the class methods, so the base `primaryKey()` (which otherwise
    /// reports the discovered key) answers nil and only an override answers a name.
    @TaskLocal static var isReading = false

    var primaryKey: String?
    var indexed: [String]
    var ignored: [String]

    /// Calls the class methods of `type`.
    static func read(from type: ObjectBase.Type) -> LegacyDeclarations {
        $isReading.withValue(true) {
            LegacyDeclarations(primaryKey: (type as? Object.Type)?.primaryKey(),
                               indexed: type.indexedProperties(), ignored: type.ignoredProperties())
        }
    }

    /// Marks the legacy primary key and indexed properties on `properties`.
    ///
    /// - Throws: ``Realm/Error`` with code `invalidSchema` when a name is not a `@Persisted`
    ///   property, its type cannot be a primary key or indexed, it disagrees with a
    ///   `@Persisted(primaryKey: true)` declaration, or an ignored property is `@Persisted`.
    func apply(to properties: inout [PropertyInfo], className: String) throws {
        func invalid(_ message: String) -> Realm.Error { Realm.Error(Realm.Error.invalidSchema, message) }
        if let primaryKey {
            guard let index = properties.firstIndex(where: { $0.name == primaryKey }) else {
                throw invalid("Primary key property '\(primaryKey)' does not exist on object '\(className)'. "
                              + "Strata stores only @Persisted properties: declare it as "
                              + "`@Persisted(primaryKey: true) var \(primaryKey)` (and drop `primaryKey()`).")
            }
            if let declared = properties.first(where: { $0.isPrimaryKey && $0.name != primaryKey }) {
                throw invalid("'\(className).primaryKey()' names '\(primaryKey)' but '\(declared.name)' is declared "
                              + "with @Persisted(primaryKey: true); keep only the @Persisted declaration.")
            }
            guard properties[index].accessor.valueType is any _PrimaryKey.Type else {
                throw invalid("Property '\(className).\(primaryKey)' cannot be made the primary key: only "
                              + "'int', 'string', 'objectId' and 'uuid' properties can.")
            }
            properties[index].isPrimaryKey = true
        }
        for name in indexed {
            guard let index = properties.firstIndex(where: { $0.name == name }) else {
                throw invalid("Property '\(className).\(name)' named by indexedProperties() is not a @Persisted "
                              + "property: declare it as `@Persisted(indexed: true) var \(name)`.")
            }
            guard properties[index].accessor.valueType is any _Indexable.Type else {
                throw invalid("Property '\(className).\(name)' named by indexedProperties() cannot be indexed.")
            }
            properties[index].isIndexed = true
        }
        for name in ignored where properties.contains(where: { $0.name == name }) {
            throw invalid("Property '\(className).\(name)' is named by ignoredProperties() but declared with "
                          + "@Persisted: remove @Persisted to leave it out of the schema (only @Persisted "
                          + "properties are stored).")
        }
    }

    /// Rejects stored properties of Realm types that are not wrapped in `@Persisted`: a
    /// `let items = List<T>()` or `LinkingObjects(fromType:property:)` always, and any other
    /// (`var name = ""`, what `@objc dynamic var` becomes) when the class has no `@Persisted`
    /// property at all, as such a class was written for Realm's Objective-C schema discovery.
    ///
    /// - Throws: ``Realm/Error`` with code `invalidSchema`, naming the class, the property and
    ///   its `@Persisted` spelling.
    static func rejectUnwrapped(_ fields: [(name: String, type: Any.Type)], of type: ObjectBase.Type,
                                children: [Mirror.Child], hasPersistedProperties: Bool) throws {
        let className = type.className()
        for field in fields {
            guard let persistable = field.type as? any _Persistable.Type else { continue }
            let column = persistable._rlmColumn
            let declaration: String
            if column.isLinkingObjects {
                let linking = children.first { $0.label == field.name }?.value as? any _LinkingObjectsProtocol
                let origin = linking?.originPropertyName ?? "<origin property>"
                declaration = "@Persisted(originProperty: \"\(origin)\") var \(field.name): \(field.type)"
            } else if column.collection != .single || !hasPersistedProperties {
                declaration = "@Persisted var \(field.name): \(field.type)"
            } else {
                continue
            }
            throw Realm.Error(Realm.Error.invalidSchema,
                              "Property '\(className).\(field.name)' of type '\(field.type)' is not declared with "
                                  + "@Persisted, so it would not be stored (declarations without @Persisted need "
                                  + "the Objective-C runtime). Declare it as `\(declaration)`.")
        }
    }
}
