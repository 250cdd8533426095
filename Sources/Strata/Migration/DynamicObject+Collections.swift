import Foundation
import StrataEngine

// MARK: - As a collection element

/// A `DynamicObject` is an element of the collections its properties read as: a `List`,
/// `MutableSet` or `Map` of objects reads as `List<DynamicObject>`, `MutableSet<DynamicObject>`
/// or `Map<String, DynamicObject?>`, as in Realm Swift, so that a migration can append to them.
extension DynamicObject: RealmCollectionValue, _PersistableInsideOptional {
    public static func == (lhs: DynamicObject, rhs: DynamicObject) -> Bool {
        lhs.table == rhs.table && lhs.key == rhs.key
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(table)
        hasher.combine(key)
    }

    public static var _rlmColumn: _ColumnDescription { _ColumnDescription(.link) }

    /// A `DynamicObject` is never a property of a model class, so it has no default.
    public static func _rlmDefaultValue() -> Self {
        preconditionFailure("DynamicObject cannot be the type of a @Persisted property; use a model class")
    }

    /// The new form of the linked object, in the migration running on this thread.
    public static func _rlmFromStored(_ value: StrataEngine.Value, _ context: _ReadContext) -> Self {
        guard let migration = Migration.running(for: context.realm) else {
            preconditionFailure("A MigrationObject can only be used inside its migration block")
        }
        guard case .link(let link) = value else {
            preconditionFailure("The collection holds a value that is not an object")
        }
        return Self(source: .transaction, table: link.table, key: link.key, migration: migration)
    }

    /// A link to the object. An old object links to its new form (the same object, unless the
    /// migration deleted it: then the write fails with `invalidInput`).
    public func _rlmToStored(_ context: _WriteContext) -> StrataEngine.Value {
        .link(ObjectLink(table: table, key: key))
    }
}

// MARK: - Collection properties

extension DynamicObject {
    /// The list property `propertyName` as a `List<DynamicObject>`, as Realm Swift's
    /// `dynamicList(_:)`: the same as `object[propertyName] as! List<DynamicObject>`.
    ///
    /// Traps when the property is not a list of objects.
    public func dynamicList(_ propertyName: String) -> List<DynamicObject> {
        guard let list = self[propertyName] as? List<DynamicObject> else {
            preconditionFailure("Property '\(propertyName)' is not a list of objects")
        }
        return list
    }

    /// The set property `propertyName` as a `MutableSet<DynamicObject>`, as Realm Swift's
    /// `dynamicMutableSet(_:)`.
    ///
    /// Traps when the property is not a set of objects.
    public func dynamicMutableSet(_ propertyName: String) -> MutableSet<DynamicObject> {
        guard let set = self[propertyName] as? MutableSet<DynamicObject> else {
            preconditionFailure("Property '\(propertyName)' is not a set of objects")
        }
        return set
    }

    /// The map property `propertyName` as a `Map<String, DynamicObject?>`, as Realm Swift's
    /// `dynamicMap(_:)`.
    ///
    /// Traps when the property is not a map of objects.
    public func dynamicMap(_ propertyName: String) -> Map<String, DynamicObject?> {
        guard let map = self[propertyName] as? Map<String, DynamicObject?> else {
            preconditionFailure("Property '\(propertyName)' is not a map of objects")
        }
        return map
    }

    /// The collection property at `index` as Realm Swift reads it: `List<T>`, `MutableSet<T>`
    /// or `Map<String, T>` of the element type (`DynamicObject` for objects, optional where the
    /// property is). The new object's collection is live (mutations go into the migration); the
    /// old object's is an unmanaged copy.
    func collection(at index: Int, schema: TableSchema) -> Any {
        let column = schema.columns[index]
        switch (column.type, column.isOptional) {
        case (.bool, false): return collection(of: Bool.self, column: column, index: index)
        case (.bool, true): return collection(of: Bool?.self, column: column, index: index)
        case (.int, false): return collection(of: Int.self, column: column, index: index)
        case (.int, true): return collection(of: Int?.self, column: column, index: index)
        case (.float, false): return collection(of: Float.self, column: column, index: index)
        case (.float, true): return collection(of: Float?.self, column: column, index: index)
        case (.double, false): return collection(of: Double.self, column: column, index: index)
        case (.double, true): return collection(of: Double?.self, column: column, index: index)
        case (.string, false): return collection(of: String.self, column: column, index: index)
        case (.string, true): return collection(of: String?.self, column: column, index: index)
        case (.binary, false): return collection(of: Data.self, column: column, index: index)
        case (.binary, true): return collection(of: Data?.self, column: column, index: index)
        case (.timestamp, false): return collection(of: Date.self, column: column, index: index)
        case (.timestamp, true): return collection(of: Date?.self, column: column, index: index)
        case (.decimal128, false): return collection(of: Decimal128.self, column: column, index: index)
        case (.decimal128, true): return collection(of: Decimal128?.self, column: column, index: index)
        case (.objectId, false): return collection(of: ObjectId.self, column: column, index: index)
        case (.objectId, true): return collection(of: ObjectId?.self, column: column, index: index)
        case (.uuid, false): return collection(of: UUID.self, column: column, index: index)
        case (.uuid, true): return collection(of: UUID?.self, column: column, index: index)
        case (.mixed, _): return collection(of: AnyRealmValue.self, column: column, index: index)
        case (.link, _):
            // Realm's maps of objects have optional values; its lists and sets do not.
            if column.collection == .dictionary {
                return collection(of: DynamicObject?.self, column: column, index: index)
            }
            return collection(of: DynamicObject.self, column: column, index: index)
        }
    }

    private func collection<T: RealmCollectionValue>(of type: T.Type, column: ColumnSchema, index: Int) -> Any {
        let context = _ReadContext(realm: migration.realm, table: table, object: key, column: index)
        if case .transaction = source {
            let location = CollectionLocation(context)
            switch column.collection {
            case .list, .single: return List<T>(location: location)
            case .set: return MutableSet<T>(location: location)
            case .dictionary: return Map<String, T>(location: location)
            }
        }
        let stored = snapshotValue(column: index) ?? column.emptyValue
        switch stored {
        case .list(let elements):
            let list = List<T>()
            list.append(objectsIn: elements.map { element($0, as: T.self, context) })
            return list
        case .set(let elements):
            let set = MutableSet<T>()
            set.insert(objectsIn: elements.map { element($0, as: T.self, context) })
            return set
        case .dictionary(let entries):
            let map = Map<String, T>()
            for (key, value) in entries { map[key] = element(value, as: T.self, context) }
            return map
        default:
            return List<T>()
        }
    }

    /// An element of the old object's collection: objects as old `DynamicObject`s.
    private func element<T: RealmCollectionValue>(_ value: StrataEngine.Value, as type: T.Type,
                                                  _ context: _ReadContext) -> T {
        let object: (ObjectLink) -> DynamicObject = {
            DynamicObject(source: self.source, table: $0.table, key: $0.key, migration: self.migration)
        }
        if T.self == DynamicObject.self, case .link(let link) = value { return object(link) as! T }
        if T.self == DynamicObject?.self {
            if case .link(let link) = value { return Optional(object(link)) as! T }
            return Optional<DynamicObject>.none as! T
        }
        return T._rlmFromStored(value, context)
    }
}
