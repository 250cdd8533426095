import Foundation
import StrataEngine

/// A model class's table in one Realm: the table key and where each property is stored.
final class TableInfo {
    let key: TableKey
    let classInfo: ClassInfo
    /// Property index → column index in the table (-1 for computed `LinkingObjects`).
    let columns: [Int]
    /// Each column's empty value, in column order: the row an insert starts from.
    let emptyRow: [Value]
    /// `columns` in memory of its own, which bound accessors read without retaining anything
    /// (`ObjectBase.boundColumns`); freed with the table, which every bound accessor's handle
    /// holds.
    let columnsByProperty: UnsafePointer<Int>

    init(key: TableKey, classInfo: ClassInfo, schema: TableSchema) {
        self.key = key
        self.classInfo = classInfo
        columns = classInfo.properties.map { property in
            property.isLinkingObjects ? -1 : (schema.columnIndex(property.columnName) ?? -1)
        }
        emptyRow = schema.columns.map(\.emptyValue)
        let copy = UnsafeMutablePointer<Int>.allocate(capacity: max(columns.count, 1))
        copy.initialize(from: columns, count: columns.count)
        columnsByProperty = UnsafePointer(copy)
    }

    deinit {
        columnsByProperty.deallocate()
    }
}

/// Where a managed object lives: its Realm, table and key. Property reads and writes go
/// through it.
@usableFromInline
struct ObjectHandle {
    let realm: Realm
    let table: TableInfo
    /// Changed only when an iteration rebinds an accessor nothing else references (see
    /// `ObjectBase.rebind(to:borrowing:at:)`).
    var key: ObjectKey
    /// The Realm's ``RealmState/invalidations`` when the handle was made: once ``Realm/invalidate()``
    /// counts past it, the object stays invalidated, as in Realm, even after the Realm reads again.
    let epoch: UInt32

    init(realm: Realm, table: TableInfo, key: ObjectKey) {
        self.realm = realm
        self.table = table
        self.key = key
        epoch = realm.state.invalidations
    }

    /// Whether the Realm was invalidated since the handle was made.
    var isStale: Bool { epoch != realm.state.invalidations }

    /// Whether the object still exists at the Realm's current version.
    var exists: Bool {
        !isStale && !realm.isInvalidated && realm.readSnapshot.table(table.key)?.contains(key) == true
    }

    func context(column: Int) -> _ReadContext {
        _ReadContext(realm: realm, table: table.key, object: key, column: column)
    }

    /// The context a `LinkingObjects` property (computed, `column` < 0) is read in: it names the
    /// origin property.
    private func linkingContext(property: Int, column: Int) -> _ReadContext {
        var linking = context(column: column)
        linking.originProperty = table.classInfo.properties[property].originProperty
        return linking
    }

    /// Reads a property of `object` (whose handle this is), through its row cache.
    ///
    /// Traps when the object was deleted, as Realm does ("Object has been deleted or invalidated.").
    @usableFromInline
    func read<V: _Persistable>(property: Int, as type: V.Type, of object: ObjectBase) -> V {
        let state = realm.state
        guard state.isOnOwningThread else { preconditionFailure("Realm accessed from incorrect thread.") }
        let column = table.columns[property]
        // The hot path: the row read earlier at this version and write position.
        if column >= 0, !state.isFrozen, let value = object.cachedValue(column: column, at: state.readKey) {
            return V._rlmFromStored(value, context(column: column))
        }
        return readUncached(property: property, column: column, as: V.self, of: object)
    }

    /// ``read(property:as:of:)`` for a computed property, a frozen object, or a row not cached at
    /// the Realm's current read key.
    private func readUncached<V: _Persistable>(property: Int, column: Int, as type: V.Type, of object: ObjectBase) -> V {
        if column < 0 { return V._rlmFromStored(.null, linkingContext(property: property, column: column)) }
        // Frozen objects may be read by several threads at once: no cache writes there.
        if realm.state.isFrozen { return read(property: property, as: V.self) }
        // A row cached before `Realm.invalidate()` is stale (the invalidation counts as a change),
        // so an invalidated object's reads all come here.
        if isStale { preconditionFailure("Object has been deleted or invalidated.") }
        let readKey = realm.state.readKey
        guard let row = realm.readSnapshot.table(table.key)?.row(key) else {
            // Inside a write that a failure cancelled, objects it created are gone until
            // `write {}` throws; reads give defaults instead of trapping first.
            if case .failed = realm.writeState { return V._rlmFromStored(.null, context(column: column)) }
            preconditionFailure("Object has been deleted or invalidated.")
        }
        object.cacheRow(row, at: readKey)
        return V._rlmFromStored(row[column], context(column: column))
    }

    /// Reads a property without a row cache (the dynamic API).
    func read<V: _Persistable>(property: Int, as type: V.Type) -> V {
        let column = table.columns[property]
        if column < 0 { return V._rlmFromStored(.null, linkingContext(property: property, column: column)) }
        guard !isStale, let value = realm.readSnapshot.table(table.key)?.value(of: key, column: column) else {
            preconditionFailure("Object has been deleted or invalidated.")
        }
        return V._rlmFromStored(value, context(column: column))
    }

    /// Reads a property as `Any` (the dynamic API), as its persisted type: a `URL` property
    /// stored as a `String` reads a `String`.
    func readAny(property: Int) -> Any {
        let type: any _Persistable.Type = table.classInfo.properties[property].accessor.valueType._rlmDynamicType
        return read(property: property, using: type)
    }

    private func read<V: _Persistable>(property: Int, using type: V.Type) -> Any {
        read(property: property, as: V.self)
    }

    /// Writes a property of the object `key` of `table` in `realm` (static: the typed setter
    /// passes the parts its handle holds without copying the handle); user-caused failures
    /// cancel the write and are thrown by `write {}`.
    static func write<V: _Persistable>(_ value: V, property: Int, realm: Realm, table: TableInfo, key: ObjectKey) {
        // The Realm's state is read once (a property set is a hot path): thread, write and
        // failure checks, then the transaction.
        guard let transaction = realm.liveTransaction(modifying: "object") else { return }
        if table.classInfo.primaryKey == property {
            realm.recordWriteFailure(Realm.Error(Realm.Error.invalidInput,
                                                 "Primary key can't be changed after an object is inserted."))
            return
        }
        // Converting an object value may add it, and a failure there cancels the transaction:
        // the set then throws on the closed transaction and the first failure stands.
        let stored = value._rlmToStored(_WriteContext(realm: realm, update: .error))
        store(stored, property: property, in: transaction, realm: realm, table: table, key: key)
    }

    /// Writes a loosely typed value (the dynamic API).
    func writeAny(_ value: Any, property: Int) {
        let context = realm.requireWrite(modifying: "object")
        guard realm.writeIsLive else { return }
        let info = table.classInfo
        guard info.primaryKey != property else {
            realm.recordWriteFailure(Realm.Error(Realm.Error.invalidInput,
                                                 "Primary key can't be changed after an object is inserted."))
            return
        }
        let described = info.properties[property]
        // The property's own type first (a `URL` given for a `URL` property), then its persisted
        // type (any `String` for it, valid URL or not, as Realm's dynamic API allows).
        let valueType = described.accessor.valueType
        let dynamicType: any _Persistable.Type = valueType._rlmDynamicType
        guard let stored = Self.stored(value, as: valueType, context)
            ?? Self.stored(value, as: dynamicType, context) else {
            preconditionFailure(ObjectValueFiller.invalidValue(value, for: described, of: info).message)
        }
        guard let transaction = realm.transaction else { return }
        store(stored, property: property, in: transaction)
    }

    /// Converts a loosely typed value to `type` and then for storage.
    static func stored<V: _Persistable>(_ value: Any, as type: V.Type, _ context: _WriteContext) -> StrataEngine.Value? {
        V._rlmFromAny(value)?._rlmToStored(context)
    }

    private func store(_ stored: StrataEngine.Value, property: Int, in transaction: WriteTransaction) {
        Self.store(stored, property: property, in: transaction, realm: realm, table: table, key: key)
    }

    private static func store(_ stored: StrataEngine.Value, property: Int, in transaction: WriteTransaction,
                              realm: Realm, table: TableInfo, key: ObjectKey) {
        let column = table.columns[property]
        guard column >= 0 else { return }
        do {
            try transaction.setValue(stored, at: PropertyPath(table: table.key, object: key, column: column))
        } catch {
            realm.recordWriteFailure(Realm.Error.wrap(error))
        }
    }
}
