#if canImport(Glibc)
import Glibc
#endif
import Foundation
import StrataEngine
import StrataEventLoop
import StrataSupport

/// A Realm: a view of one store at one version, confined to the thread that opened it, as in
/// Realm Swift.
///
/// ```swift
/// let realm = try Realm()
/// try realm.write {
///     realm.add(Dog(value: ["name": "Rex", "age": 3]))
/// }
/// print(realm.objects(Dog.self).count)
/// ```
///
/// A Realm reads one version at a time and moves to the newest on ``refresh()``, at the start
/// of a write transaction, and after committing one. Objects and collections it returns are
/// live: they read the Realm's current version.
public final class Realm {
    /// The configuration the Realm was opened with.
    public let configuration: Configuration
    let store: Store
    /// The version, write transaction and table cache, shared by every `Realm` of this store
    /// opened on this thread (Realm Swift caches instances per thread; see `RealmState`).
    let state: RealmState
    /// The state's change count (``RealmState/changes``) and the thread whose cached property
    /// reads need no further check (nil for frozen states and other confinements), copied here
    /// for binding accessors: reading them through `state` retains it, and the state's reference
    /// count lives in a side table (it is weakly referenced), where a retain is slow.
    let changeCount: UnsafeMutablePointer<UInt64>
    let fastReadThread: pthread_t?

    private var pinned: PinnedSnapshot? {
        get { state.pinned }
        set { state.pinned = newValue }
    }

    var writeState: WriteState {
        get { state.writeState }
        set { state.writeState = newValue }
    }

    var tableInfos: [ObjectIdentifier: TableInfo] {
        get { state.tableInfos }
        set { state.tableInfos = newValue }
    }

    /// The state of the Realm's write transaction.
    enum WriteState {
        case none
        case active(WriteTransaction)
        /// A user-caused failure cancelled the transaction; `commitWrite` throws it.
        case failed(Realm.Error)
    }

    /// Opens the default Realm (``Configuration/defaultConfiguration``).
    ///
    /// - Throws: ``Realm/Error`` when the file cannot be opened, is not a Strata file, is
    ///   damaged, is open in another process, or its schema needs a migration that was not given.
    public convenience init() throws {
        try self.init(configuration: .defaultConfiguration)
    }

    /// Opens the Realm at `fileURL` with the default configuration's other settings.
    public convenience init(fileURL: URL) throws {
        var configuration = Configuration.defaultConfiguration
        configuration.fileURL = fileURL
        try self.init(configuration: configuration)
    }

    /// Opens a Realm.
    ///
    /// - Throws: ``Realm/Error``: `fileNotFound` (read-only and missing), `invalidDatabase`
    ///   (not a Strata file, or damaged), `alreadyOpen` (another process), `schemaMismatch`,
    ///   `invalidSchema`, `fail` (an encryption key was given: not supported yet).
    public convenience init(configuration: Configuration) throws {
        try self.init(configuration: configuration, queue: nil)
    }

    /// Opens a Realm confined to a serial dispatch queue, as Realm Swift's
    /// `Realm(configuration:queue:)`: call it on `queue`; the Realm may then be used from any
    /// block running on `queue`, and its notifications are delivered there.
    ///
    /// - Throws: as ``init(configuration:)``.
    ///
    /// A Realm opened without a queue is confined to the calling thread (compared by thread
    /// identity, so the main thread inside a `DispatchQueue.sync` block or a
    /// `concurrentPerform` iteration is still the main thread). One opened with a queue is
    /// confined to that queue, whichever thread runs the queue's blocks. Traps when not called
    /// on `queue`.
    public convenience init(configuration: Configuration, queue: DispatchQueue?) throws {
        try self.init(configuration: configuration) { store in
            if let queue { dispatchPrecondition(condition: .onQueue(queue)) }
            return try RealmState.forCurrentThread(store: store, queue: queue)
        }
    }

    /// Opens a Realm confined to a scheduler of the application's own (a Strata addition): the
    /// Realm may be used wherever `scheduler.isOnSchedulerThread` is true, and its change
    /// notifications, `asyncWrite` completions and `writeAsync` blocks are run through
    /// `scheduler.schedule(_:)`. Call it where the scheduler runs its work.
    ///
    /// ```swift
    /// struct ExecutorScheduler: StrataScheduler { … }   // runs work on your own executor
    /// let realm = try Realm(configuration: config, scheduler: ExecutorScheduler(executor))
    /// ```
    ///
    /// Unlike the thread and queue Realms, whose second opening returns a Realm over the same
    /// state, every call opens a Realm with a state of its own (its own pinned version and
    /// notifiers): keep the Realm rather than opening it again for each use.
    ///
    /// - Throws: as ``init(configuration:)``.
    public convenience init(configuration: Configuration = .defaultConfiguration,
                            scheduler: some StrataScheduler) throws {
        try self.init(configuration: configuration) { store in
            precondition(scheduler.isOnSchedulerThread,
                         "Realm(configuration:scheduler:) must be called where the scheduler runs its work")
            return try RealmState.forScheduler(scheduler, store: store)
        }
    }

    /// Opens a Realm with the state `confine` finds or creates for the store (per thread, queue
    /// or actor), running the schema setup when the state is new.
    init(configuration: Configuration, confine: (Store) throws -> (RealmState, isNew: Bool)) throws {
        self.configuration = configuration
        if configuration.encryptionKey != nil {
            throw Realm.Error(Realm.Error.fail, "Encryption is not supported by Strata yet; open the Realm without "
                              + "an encryptionKey")
        }
        if configuration.readOnly && configuration.shouldCompactOnLaunch != nil {
            throw Realm.Error(Realm.Error.fail, "Cannot set `shouldCompactOnLaunch` when `readOnly` is set.")
        }
        if configuration.readOnly && configuration.deleteRealmIfMigrationNeeded {
            throw Realm.Error(Realm.Error.fail, "Cannot set `deleteRealmIfMigrationNeeded` when `readOnly` is set.")
        }
        do {
            store = try SchemaSetup.openStore(configuration)
        } catch {
            throw Realm.Error.opening(error, path: configuration.fileURL?.path)
        }
        do {
            try Self.compactOnLaunchIfAsked(store, configuration)
            let (state, isNew) = try confine(store)
            self.state = state
            (changeCount, fastReadThread) = Self.bindingParts(of: state)
            if isNew {
                state.configuration = configuration
                try SchemaSetup(realm: self).run()
                state.updateTargetRetention(notificationTarget)
                state.unreadSinceOpen = true
            }
        } catch {
            throw Realm.Error.wrap(error)
        }
    }

    /// Another `Realm` value over an existing state (for notification deliveries).
    init(state: RealmState, configuration: Configuration) {
        self.configuration = configuration
        store = state.store
        self.state = state
        (changeCount, fastReadThread) = Self.bindingParts(of: state)
    }

    private static func bindingParts(of state: RealmState) -> (UnsafeMutablePointer<UInt64>, pthread_t?) {
        (state.changes.value, state.isFrozen ? nil : state.confinedThread)
    }

    // MARK: - Versions

    /// The snapshot reads use: the write transaction's working copy inside a write, otherwise
    /// the pinned version (pinning the newest if the Realm was invalidated).
    var readSnapshot: Snapshot {
        if state.unreadSinceOpen { state.unreadSinceOpen = false }
        if case .active(let transaction) = writeState { return transaction.snapshot }
        if let pinned { return pinned.snapshot }
        repin()
        return pinned?.snapshot ?? store.currentSnapshot
    }

    /// Calls `body` with ``readSnapshot`` where it is kept (the transaction's working copy or
    /// the pinned version) rather than a copy of it (a copy retains the snapshot's tables and
    /// releases them after): for paths that run once per object.
    func withReadSnapshot<R>(_ body: (borrowing Snapshot) -> R) -> R {
        let state = self.state
        if state.unreadSinceOpen { state.unreadSinceOpen = false }
        if case .active(let transaction) = state.writeState { return transaction.withSnapshot(body) }
        if state.pinned == nil { repin() }
        if let pinned = state.pinned { return pinned.withSnapshot(body) }
        return body(store.currentSnapshot)
    }

    /// The version the Realm reads.
    var version: UInt64 { readSnapshot.version }

    private func repin() {
        pinned = nil
        pinned = try? store.pin()
    }

    /// Whether ``invalidate()`` dropped the Realm's version (it is re-read on next use).
    var isInvalidated: Bool { pinned == nil && !isInWriteTransaction }

    /// Advances the Realm to the newest version.
    ///
    /// - Returns: whether the version changed.
    /// Calls the Realm observers (``observe(_:)``) with `.didChange` when the version changed.
    @discardableResult
    /// A frozen Realm never moves: there it returns false.
    public func refresh() -> Bool {
        verifyThread()
        guard !isInWriteTransaction, !state.isFrozen else { return false }
        return deliverNotifications(advancingTo: try? store.pin(holder: Self.notifierHolder))
    }

    /// Moves to the newest version without notifying.
    ///
    /// - Returns: whether the version changed.
    @discardableResult
    func advance() -> Bool {
        guard !isInWriteTransaction else { return false }
        let before = pinned?.version
        repin()
        return pinned?.version != before
    }

    /// Releases the Realm's version (and cancels a write in progress), as Realm Swift's
    /// `invalidate()`.
    ///
    /// Every object, `List`, `MutableSet`, `Map` and `LinkingObjects` read from the Realm (on this
    /// thread) before the call is invalidated for good: `isInvalidated` is true and reading it
    /// traps ("Object has been deleted or invalidated."). Fetch them again (`objects(_:)`,
    /// `object(ofType:forPrimaryKey:)`) to read on: the next read takes the newest version.
    /// A `Results` reports `isInvalidated` until it is read again, and then reads the newest
    /// version. A frozen Realm keeps its version: there this does nothing.
    public func invalidate() {
        verifyThread()
        guard !state.isFrozen else { return }
        if isInWriteTransaction { cancelWrite() }
        state.invalidations &+= 1
        pinned = nil
    }

    /// Whether the Realm has no objects of its model classes.
    public var isEmpty: Bool {
        let snapshot = readSnapshot
        return tableInfos.values.allSatisfy { snapshot.table($0.key)?.count ?? 0 == 0 }
            && snapshot.allTables.allSatisfy { $0.schema.name.hasPrefix("__") || $0.count == 0 }
    }

    /// The Realm's schema: one ``ObjectSchema`` per model class.
    public var schema: Schema {
        var classes = Dictionary(state.schemaClasses.map { ($0.className, $0) }, uniquingKeysWith: { a, _ in a })
        for table in tableInfos.values { classes[table.classInfo.className] = table.classInfo }
        return Schema(classes.values.sorted { $0.className < $1.className }.map(ObjectSchema.init))
    }

    // MARK: - Threads

    /// Traps when the Realm is used from a thread other than the one that opened it (from
    /// outside its queue or actor, for a Realm confined to one).
    func verifyThread() {
        guard state.isOnOwningThread else {
            preconditionFailure("Realm accessed from incorrect thread.")
        }
    }

    // MARK: - Tables

    /// The table of the model class `type`: without the class registry's lock (a lookup in this
    /// Realm's own cache) once this Realm has used the class.
    func tableInfo(ofType type: ObjectBase.Type) -> TableInfo? {
        let state = self.state, identifier = ObjectIdentifier(type)
        if let last = state.lastTableInfo, last.type == identifier { return last.table }
        if let known = state.tableInfos[identifier] {
            if !state.isFrozen { state.lastTableInfo = (identifier, known) }
            return known
        }
        return tableInfo(for: ClassInfo.known(type))
    }

    /// The table of a model class, or nil when the file has none yet.
    func tableInfo(for info: ClassInfo) -> TableInfo? {
        if let known = tableInfos[ObjectIdentifier(info.type)] { return known }
        guard let table = readSnapshot.table(named: info.className) else { return nil }
        let tableInfo = TableInfo(key: table.key, classInfo: info, schema: table.schema)
        // A frozen state is shared by threads and never mutated (see `RealmState.isFrozen`).
        if !state.isFrozen { tableInfos[ObjectIdentifier(info.type)] = tableInfo }
        return tableInfo
    }

    /// A managed accessor for `key` of the class `type`.
    func accessor<T: ObjectBase>(_ type: T.Type, table: TableInfo, key: ObjectKey) -> T {
        let object = table.classInfo.hasGeneratedDefaults
            ? AccessorConstruction.run { type.init() } : type.init()
        // Through an unretained reference (`object` holds the accessor): called directly, the
        // compiler retained and released the new accessor around the call.
        Unmanaged.passUnretained(object)._withUnsafeGuaranteedRef {
            $0.bind(to: ObjectHandle(realm: self, table: table, key: key))
        }
        if isRecordingEvents { recordObjectRead(table: table, key: key) }
        return object
    }

    /// A managed accessor for a link, of the class whose table the link points into.
    func accessor<T: ObjectBase>(for link: ObjectLink, as type: T.Type) -> T? {
        guard let table = tableInfo(forKey: link.table, expecting: type) else { return nil }
        return accessor(table.classInfo.type, table: table, key: link.key) as? T
    }

    /// The model class of the table `key`: the cached one, else `type` when it is that table's
    /// class, else any class of that name this process knows.
    func tableInfo(forKey key: TableKey, expecting type: ObjectBase.Type) -> TableInfo? {
        if let known = tableInfos.values.first(where: { $0.key == key }) { return known }
        guard let name = readSnapshot.table(key)?.schema.name else { return nil }
        if type != Object.self, type != EmbeddedObject.self, let info = try? ClassInfo.of(type), info.className == name {
            return tableInfo(for: info)
        }
        guard let info = ClassInfo.knownClasses.first(where: { $0.className == name }) else { return nil }
        return tableInfo(for: info)
    }
}
