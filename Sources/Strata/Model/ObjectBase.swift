#if canImport(Glibc)
import Glibc
#endif
import Foundation
import StrataEngine

/// The common base of ``Object`` and ``EmbeddedObject``, as in Realm Swift.
///
/// An instance is *unmanaged* (a plain object) until it is added to a Realm; then it is
/// *managed*: its `@Persisted` properties read and write the Realm, and it is confined to the
/// Realm's thread.
open class ObjectBase: CustomStringConvertible {
    // These fields are read on every property access. They need no dynamic exclusivity checks:
    // an object is confined to its Realm's thread (a frozen one is never written after it is
    // bound and skips the row cache), and no access to them spans a call that could reach them.

    /// Where a managed object lives; nil while unmanaged.
    @usableFromInline @exclusivity(unchecked) final var handle: ObjectHandle?
    /// Set on the throwaway instances that turn Swift key paths into property names.
    @usableFromInline @exclusivity(unchecked) final var tracer: KeyPathTracer?
    /// The managed object's row as last read, and the Realm's ``RealmState/readKey`` then:
    /// property reads skip the snapshot, table and tree lookups while nothing changed.
    @usableFromInline @exclusivity(unchecked) final var cachedRow: Row?
    @usableFromInline @exclusivity(unchecked) final var cachedRowKey = RealmState.noReadKey
    /// The cached row when it is borrowed rather than held (then `cachedRow` is nil): a row in
    /// the leaf or query result an iteration's reader holds, read in place. Only the reader of
    /// an iteration lends rows, to the accessor it hands out, and takes them back by making the
    /// accessor hold its row (``holdBorrowedRow()``) before it lets go of them when the loop kept
    /// the accessor; the accessor is otherwise rebound or freed with the reader.
    @usableFromInline @exclusivity(unchecked) final var borrowedRow: UnsafePointer<Row>?
    /// Copies of the handle's parts that a cached property read needs, set with `handle` by
    /// ``bind(to:)``, so that the read touches only this object's fields and plain memory: it
    /// never retains the Realm or its state (both are weakly referenced elsewhere, which puts
    /// their reference counts in a side table where each retain costs tens of nanoseconds).
    /// Safety: `handle` holds the Realm, the Realm its state, and the state its change counter,
    /// strongly for the object's lifetime (a bound object is never unbound).
    @usableFromInline @exclusivity(unchecked) final var boundRealm: Unmanaged<Realm>?
    /// The handle's table (held by the handle, as the Realm is), for property sets.
    @exclusivity(unchecked) var boundTableInfo: Unmanaged<TableInfo>?
    /// The handle's table's ``TableInfo/columnsByProperty``: property index → column index, read
    /// without touching the table object (reading its `columns` array would retain and release
    /// the array on every property read).
    @usableFromInline @exclusivity(unchecked) final var boundColumns: UnsafePointer<Int>?
    /// The Realm's change count (``RealmState/changes``).
    @usableFromInline @exclusivity(unchecked) final var boundChanges: UnsafeMutablePointer<UInt64>?
    /// The thread a thread-confined, live Realm belongs to; nil for frozen Realms and Realms
    /// confined to a queue, scheduler or actor, whose reads take the handle's full check.
    @usableFromInline @exclusivity(unchecked) final var boundThread: pthread_t?
    @usableFromInline @exclusivity(unchecked) final var boundTable = TableKey(0)
    @usableFromInline @exclusivity(unchecked) final var boundKey = ObjectKey(0)

    /// Creates an unmanaged object with default property values.
    public required init() {}

    /// The class name used in the schema: the Swift type's name.
    open class func className() -> String { String(describing: self) }

    /// Realm's pre-`@Persisted` way to index properties: the names returned are indexed, as with
    /// `@Persisted(indexed: true)`, which is the preferred spelling.
    ///
    /// Each name must be a `@Persisted` property of an indexable type; schema discovery throws
    /// ``Realm/Error`` with code `invalidSchema` otherwise.
    ///
    /// - Returns: The names of the properties to index; none by default.
    open class func indexedProperties() -> [String] { [] }

    /// Realm's pre-`@Persisted` way to leave properties out of the schema.
    ///
    /// Only `@Persisted` properties are stored, so others need not be listed; a listed name that
    /// is `@Persisted` makes schema discovery throw ``Realm/Error`` with code `invalidSchema`
    /// (remove `@Persisted` instead).
    ///
    /// - Returns: The names of properties not to store; none by default.
    open class func ignoredProperties() -> [String] { [] }

    /// Custom column names, as Realm Swift's `propertiesMapping()`: each property named as a key
    /// is stored in the file under the value, while the code keeps using the property's name
    /// (queries, sort and distinct key paths, key-value coding, observation, schema).
    ///
    /// ```swift
    /// final class Person: Object {
    ///     @Persisted var firstName: String
    ///     override class func propertiesMapping() -> [String: String] { ["firstName": "first_name"] }
    /// }
    /// ```
    ///
    /// A key that is not a `@Persisted` property, or two properties stored under one name, make
    /// schema discovery throw ``Realm/Error`` with code `invalidSchema`. Changing a mapping
    /// changes the file's column names: the columns are then renamed by a migration, as for any
    /// renamed property.
    ///
    /// - Returns: Property name → stored column name; none by default.
    open class func propertiesMapping() -> [String: String] { [:] }

    /// The Realm managing the object, or nil if it is unmanaged.
    public var realm: Realm? { handle?.realm }

    /// Whether the object was deleted from its Realm or the Realm was invalidated.
    public var isInvalidated: Bool {
        guard let handle else { return false }
        return !handle.exists
    }

    /// The schema of the object's class.
    public var objectSchema: ObjectSchema {
        ObjectSchema(ClassInfo.known(type(of: self)))
    }

    /// The address of the `Persisted` storage of `property` in this instance.
    final func address(of property: some PersistedStorageLocation) -> UnsafeMutableRawPointer {
        Unmanaged.passUnretained(self).toOpaque().advanced(by: property.offset)
    }

    /// Reads a managed property (the `@Persisted` getter once its storage is bound).
    ///
    /// While the Realm has not changed since the row was cached, and on the Realm's own thread,
    /// the read is a few loads: the thread, the change count, the property's column, the cached
    /// row's value. The fast path is inlined into the model's module, where it is specialized for
    /// the property's type (an `Int` or a `String` is then taken out of its `Value` inline rather
    /// than through the type's witness table); anything else takes
    /// ``readManagedSlowly(property:as:)``.
    @inlinable @inline(__always)
    final func readManaged<V: _Persistable>(property: Int, as type: V.Type) -> V {
        if let thread = boundThread, Self.isCurrentThread(thread),
           cachedRowKey == boundChanges.unsafelyUnwrapped.pointee {
            let column = boundColumns.unsafelyUnwrapped[property]
            if column >= 0 {
                // In place: copying the cached row out would retain and release its storage.
                // One read for both places the row may be (the getter stays small enough to inline).
                let value = withUnsafePointer(to: &cachedRow) { cached in
                    Row.value(at: borrowedRow ?? UnsafeRawPointer(cached).assumingMemoryBound(to: Row.self), column: column)
                }
                return V._rlmFromStored(value, _ReadContext(unretained: boundRealm.unsafelyUnwrapped, table: boundTable,
                                                            object: boundKey, column: column))
            }
        }
        return readManagedSlowly(property: property, as: V.self)
    }

    /// Whether `thread` is the calling thread. glibc's `pthread_t` is the thread's address and
    /// its `pthread_equal` is `==`: compared inline, a property read makes one call fewer.
    @inlinable @inline(__always)
    static func isCurrentThread(_ thread: pthread_t) -> Bool {
        #if canImport(Glibc)
        return thread == pthread_self()
        #else
        return pthread_equal(thread, pthread_self()) != 0
        #endif
    }

    /// ``readManaged(property:as:)`` through the handle: another thread, a frozen or confined
    /// Realm, a row not cached at the current version, a computed property.
    @usableFromInline @inline(never)
    final func readManagedSlowly<V: _Persistable>(property: Int, as type: V.Type) -> V {
        handle!.read(property: property, as: V.self, of: self)
    }

    /// Whether a read of a collection property may keep the collection in the property's storage:
    /// a live managed object, confined to its Realm's thread (a frozen one is read by several
    /// threads at once). Traps, as any read does, on another thread than the Realm's.
    @usableFromInline
    final var keepsCollections: Bool {
        guard let handle, !handle.realm.state.isFrozen else { return false }
        handle.realm.verifyThread()
        return true
    }

    /// Whether `value`, kept in the storage of the collection property `property`, is this
    /// object's managed collection of that property now (not one of an object this accessor
    /// was bound to before, nor one read before `Realm.invalidate()`).
    @usableFromInline
    final func holdsManagedCollection(_ value: Any, property: Int) -> Bool {
        guard let handle, let collection = value as? any ManagedInPlace, let location = collection.location else {
            return false
        }
        return location.realm === handle.realm && location.object == handle.key && location.table == handle.table.key
            && location.column == handle.table.columns[property] && location.path.isEmpty && !location.isStale
    }

    /// Writes a managed property (the `@Persisted` setter once its storage is bound).
    @usableFromInline
    final func writeManaged<V: _Persistable>(_ value: V, property: Int) {
        // As in Realm, an object read before `Realm.invalidate()` is not written, in a write or not.
        if handle?.isStale == true { preconditionFailure("Object has been deleted or invalidated.") }
        dropCachedRow()
        // Through the bound parts, which the handle holds: calling the handle's method would copy
        // the handle (a retain and a release of the Realm and of the table) on every set.
        boundRealm.unsafelyUnwrapped._withUnsafeGuaranteedRef { realm in
            boundTableInfo.unsafelyUnwrapped._withUnsafeGuaranteedRef { table in
                ObjectHandle.write(value, property: property, realm: realm, table: table, key: boundKey)
            }
        }
    }

    /// Forgets the cached row before a write: it is stale once the write changes anything, and
    /// while this cache holds it the tree's row is shared, so the write would copy the row
    /// before changing one value in it.
    final func dropCachedRow() {
        cachedRow = nil
        borrowedRow = nil
        cachedRowKey = RealmState.noReadKey
    }

    /// Caches `row`, the object's row at the Realm's read key `readKey`.
    final func cacheRow(_ row: Row, at readKey: UInt64) {
        cachedRow = row
        borrowedRow = nil
        cachedRowKey = readKey
    }

    /// Caches the row at `row`, lent by an iteration's reader (see ``borrowedRow``), the object's
    /// row at the Realm's read key `readKey`.
    final func borrowRow(_ row: UnsafePointer<Row>, at readKey: UInt64) {
        cachedRow = nil
        borrowedRow = row
        cachedRowKey = readKey
    }

    /// Holds a copy of the borrowed row, if any, instead of borrowing it: before the reader that
    /// lent it lets go of it.
    final func holdBorrowedRow() {
        guard let row = borrowedRow else { return }
        cachedRow = Row.copy(at: row)
        borrowedRow = nil
    }

    /// The value of `column` of the cached row, borrowed or held, or nil when no row is cached at
    /// `readKey`.
    final func cachedValue(column: Int, at readKey: UInt64) -> StrataEngine.Value? {
        guard cachedRowKey == readKey else { return nil }
        if let borrowedRow { return Row.value(at: borrowedRow, column: column) }
        return cachedRow?[column]
    }

    /// Points every persisted property of this instance at its column in `handle`'s Realm.
    ///
    /// Takes `handle` over (its Realm and table are not retained again for this object).
    final func bind(to handle: consuming ObjectHandle) {
        // Every `Persisted<Value>` starts with its managed property index and owner, at offsets
        // that do not depend on `Value` (`PersistedLayout`): binding writes them directly instead
        // of calling each property's accessor through its existential type.
        let base = Unmanaged.passUnretained(self).toOpaque()
        let owner: Unmanaged<ObjectBase>? = Unmanaged.passUnretained(self)
        for (index, offset) in handle.table.classInfo.propertyOffsets.enumerated() {
            let storage = base.advanced(by: offset)
            storage.storeBytes(of: index, toByteOffset: PersistedLayout.propertyOffset, as: Int.self)
            storage.storeBytes(of: owner, toByteOffset: PersistedLayout.ownerOffset, as: Unmanaged<ObjectBase>?.self)
        }
        // A row cached under another Realm's count must not match this one's.
        dropCachedRow()
        boundTable = handle.table.key
        boundKey = handle.key
        boundRealm = Unmanaged.passUnretained(handle.realm)
        boundTableInfo = Unmanaged.passUnretained(handle.table)
        boundColumns = handle.table.columnsByProperty
        boundChanges = handle.realm.changeCount
        boundThread = handle.realm.fastReadThread
        self.handle = consume handle
    }

    /// Makes this accessor the accessor of the object `key` of the same table and Realm, borrowing
    /// `row`, that object's row at the read key `readKey` (see ``borrowedRow``), or with no row
    /// cached when it is nil. Only for an accessor nothing else references (`AccessorRecycler`
    /// checks), of a class with no state beyond its binding
    /// (``ClassInfo/accessorsAreRecyclable``): the `@Persisted` storage stays bound to the same
    /// properties and owner.
    final func rebind(to key: ObjectKey, borrowing row: UnsafePointer<Row>?, at readKey: UInt64) {
        handle?.key = key
        boundKey = key
        // Tested first: clearing a row that is not there still calls its outlined destroy.
        if cachedRow != nil { cachedRow = nil }
        borrowedRow = row
        cachedRowKey = row == nil ? RealmState.noReadKey : readKey
    }

    // MARK: - Dynamic access

    /// Reads or writes a property by name, as Realm Swift's `object["name"]`.
    ///
    /// The value has the property's persisted type: a `URL` property stored as a `String`
    /// (``FailableCustomPersistable``) reads a `String`, and a managed object accepts any
    /// `String` for it (a typed read of a string that is not a URL then gives nil for an
    /// optional property).
    ///
    /// Reading an unknown name returns nil. Writing an unknown name or a value of the wrong type
    /// traps with a message (as Realm's key-value coding raises); on a managed object the write
    /// needs a write transaction.
    public subscript(key: String) -> Any? {
        get {
            guard let info = try? ClassInfo.of(type(of: self)), let index = info.propertyIndex[key] else { return nil }
            let property = info.properties[index]
            var value: Any
            if let handle {
                value = handle.readAny(property: index)
            } else {
                value = property.accessor.unmanagedValue(at: address(of: property))
                value = (value as? any _Persistable)?._rlmDynamicValue ?? value
            }
            // A nil optional, or an AnyRealmValue holding none, reads as nil, as in Realm, not as
            // an `Optional` (or `.none`) boxed in `Any`.
            if let optional = value as? any _FlattenableOptional { return optional.flattened }
            if case AnyRealmValue.none? = value as? AnyRealmValue { return nil }
            return value
        }
        set {
            let info = ClassInfo.known(type(of: self))
            guard let index = info.propertyIndex[key] else {
                preconditionFailure("Invalid property name: property '\(key)' not found in object of type "
                                    + "'\(info.className)'")
            }
            let property = info.properties[index]
            if let handle {
                dropCachedRow()
                handle.writeAny(newValue ?? NSNull(), property: index)
            } else {
                let value = newValue ?? NSNull()
                guard property.accessor.setUnmanaged(at: address(of: property), value: value) else {
                    preconditionFailure(ObjectValueFiller.invalidValue(value, for: property, of: info).message)
                }
            }
        }
    }

    /// Whether `object` is the same object in the same Realm (for managed objects), or the same
    /// instance (for unmanaged ones).
    public func isSameObject(as object: ObjectBase?) -> Bool {
        guard let object else { return false }
        if self === object { return true }
        guard let mine = handle, let theirs = object.handle else { return false }
        return mine.realm.state === theirs.realm.state && mine.table.key == theirs.table.key && mine.key == theirs.key
    }

    // MARK: - Description

    /// The class name and every property with its value, as Realm prints objects: linked
    /// objects and collections nested and indented, five levels deep at most (deeper ones print
    /// as `<Maximum depth exceeded>`, so a cycle of objects prints).
    open var description: String { description(depth: RealmDescription.maximumDepth) }

    func description(depth: Int) -> String {
        guard let info = try? ClassInfo.of(type(of: self)) else { return "\(type(of: self))" }
        if isInvalidated { return "[invalid object]" }
        let properties = info.properties.filter { !$0.isLinkingObjects }.map { ($0.name, self[$0.name]) }
        return RealmDescription.object(className: info.className, properties: properties, depth: depth)
    }
}

extension ObjectBase: DepthDescribable {}
