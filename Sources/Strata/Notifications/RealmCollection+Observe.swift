import Dispatch
import StrataEngine
import StrataNotify
import StrataQuery
@_spi(StrataDaemon) import StrataSupport

extension RealmCollection {
    /// Registers a block called with the collection's changes, as Realm Swift's
    /// `observe(keyPaths:on:_:)`.
    ///
    /// The block first receives `.initial` (asynchronously, on this Realm's scheduler, once the
    /// query has run), then `.update` after each commit that changed the collection: several
    /// commits between two deliveries arrive as one change. Without `keyPaths`, a change to any
    /// property of an element, or of an object it links to within four links, is a modification;
    /// with `keyPaths`, only changes to those paths are (insertions and deletions always count).
    ///
    /// ```swift
    /// let token = realm.objects(Dog.self).where { $0.age > 2 }.observe(keyPaths: ["name"]) { change in
    ///     if case .update(_, let deletions, let insertions, let modifications) = change {
    ///         print(deletions, insertions, modifications)
    ///     }
    /// }
    /// ```
    ///
    /// With a `queue`, the block runs on that serial queue, as in Realm Swift: the collection is
    /// handed over with a ``ThreadSafeReference`` and resolved in a Realm of the same
    /// configuration confined to the queue, so the collection the block receives belongs to the
    /// queue (use it there, not on the registering thread). If that Realm cannot be opened the
    /// block receives `.error`.
    ///
    /// Traps inside a write transaction, for an unmanaged collection, and, without a queue, on a
    /// thread with no scheduler (open the Realm on the main thread, a `LibUVEventLoop` thread, a
    /// queue or an actor).
    ///
    /// - Parameters:
    ///   - keyPaths: Property paths of the elements whose changes count as modifications.
    ///   - queue: A serial queue to deliver on, or nil for this Realm's own scheduler.
    ///   - block: Called with each change.
    /// - Returns: A token; keep it for as long as you want notifications. It may be invalidated
    ///   from any thread; no block starts after `invalidate()` returns.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<Self>) -> Void) -> NotificationToken {
        if let queue {
            return observeHandedOver(to: queue) { resolved, isWanted in
                switch resolved {
                case .success(let collection):
                    return collection.observe(keyPaths: keyPaths, on: nil) { change in
                        if isWanted() { block(change) }
                    }
                case .failure(let error):
                    block(.error(error))
                    return nil
                }
            }
        }
        return observe(keyPaths: keyPaths, budget: nil, block)
    }
}

extension Results where Element: ObjectBase {
    /// Registers a block with key paths given as Swift key paths (`[\Dog.name, \.owner?.name]`).
    public func observe(keyPaths: [PartialKeyPath<Element>], on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<Results>) -> Void) -> NotificationToken {
        observe(keyPaths: KeyPathTracer.observedNames(keyPaths), on: queue, block)
    }
}

extension List where Element: ObjectBase {
    /// Registers a block with key paths given as Swift key paths.
    public func observe(keyPaths: [PartialKeyPath<Element>], on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<List>) -> Void) -> NotificationToken {
        observe(keyPaths: KeyPathTracer.observedNames(keyPaths), on: queue, block)
    }
}

extension ResultsSource {
    /// Registers the notifier that fits this source and query, held to `budget` from its
    /// initial state on; `deliver` gets nil for the initial delivery and the change set after.
    func addNotifier(_ query: ParsedQuery, realm: Realm, keyPaths: [String]?, cache: ResultsCache,
                     budget: ComputeBudget? = nil,
                     deliver: @escaping (CollectionChangeSet?) -> Void) -> NotificationToken {
        let snapshot = realm.readSnapshot
        switch self {
        case .table(let className):
            let info = ClassInfo.knownClasses.first { $0.className == className }
            let watch = info.map { KeyPathFilter(realm: realm).collectionNode(keyPaths, for: $0) } ?? .deep(depth: 4)
            if TableResultsComputer.supports(query, tableName: className, in: snapshot) {
                let computer = TableResultsComputer(query: query, tableName: className, watch: watch)
                return realm.addNotifier(computer, budget: budget) { delivery, _ in
                    // The results read the notifier's matches until the Realm moves on.
                    switch delivery {
                    case .initial(let matches?), .change(let matches?, _, _, _):
                        cache.rows = .matches(matches)
                        cache.generation = realm.readGeneration
                    default: break
                    }
                    if case .change(_, let change, _, _) = delivery { deliver(change) } else { deliver(nil) }
                }
            }
            let read: @Sendable (Snapshot) -> [StrataEngine.Value] = { snapshot in
                guard let table = snapshot.tableKey(named: className),
                      let compiled = try? CompiledQuery(query, snapshot: snapshot, table: table) else { return [] }
                return compiled.run(on: snapshot).map { .link(ObjectLink(table: table, key: $0)) }
            }
            return realm.addCollectionNotifier(KeyListComputer(inputs: nil, watch: watch, read: read), budget: budget,
                                               deliver)
        case .collection(let base):
            let watch = base.objectClass.map { KeyPathFilter(realm: realm).collectionNode(keyPaths, for: ClassInfo.known($0)) }
            let location = base.location
            let path = location.propertyPath
            let isPlain = query == ParsedQuery(predicate: .constant(true)) && location.path.isEmpty && base.backlinks == nil
            if isPlain, case .list? = snapshot.table(path.table)?.value(of: path.object, column: path.column) {
                return realm.addCollectionNotifier(ListComputer(path: path, watch: watch), budget: budget, deliver)
            }
            let reader = base.snapshotReader(realm: realm)
            let read: @Sendable (Snapshot) -> [StrataEngine.Value] = { snapshot in
                let elements = reader(snapshot)
                guard let table = elements.table else {
                    return PrimitiveQuery.run(query, values: elements.values, snapshot: snapshot)
                }
                let keys = elements.values.compactMap { $0.link?.key }
                guard let compiled = try? CompiledQuery(query, snapshot: snapshot, table: table) else { return [] }
                return compiled.run(on: snapshot, base: keys).map { .link(ObjectLink(table: table, key: $0)) }
            }
            return realm.addCollectionNotifier(KeyListComputer(inputs: nil, watch: watch, read: read), budget: budget,
                                               deliver)
        }
    }
}

extension CollectionBase {
    /// Reads the collection's elements from any snapshot, without the Realm (for the notifier
    /// worker): the element table for objects, and the stored elements.
    func snapshotReader(realm: Realm) -> @Sendable (Snapshot) -> (table: TableKey?, values: [StrataEngine.Value]) {
        let table = location.table
        let object = location.object
        let column = location.column
        let path = location.path
        if let backlinks {
            let origin = realm.tableInfo(for: ClassInfo.known(backlinks.origin))
            let originColumn = origin.flatMap { info in info.classInfo.propertyIndex[backlinks.property].map { info.columns[$0] } }
            let originTable = origin?.key
            return { snapshot in
                guard let originTable, let originColumn else { return (nil, []) }
                var counts: [ObjectKey: Int] = [:]
                for link in snapshot.table(table)?.backlinks(to: object) ?? []
                where link.table == originTable && link.column == originColumn {
                    counts[link.object, default: 0] += 1
                }
                return (originTable, counts.keys.sorted().map { .link(ObjectLink(table: originTable, key: $0)) })
            }
        }
        let elementTable = objectClass.flatMap { realm.tableInfo(for: ClassInfo.known($0))?.key }
        return { snapshot in
            guard let top = snapshot.table(table)?.value(of: object, column: column), let value = top.nested(at: path) else {
                return (elementTable, [])
            }
            switch value {
            case .list(let elements), .set(let elements): return (elementTable, elements)
            case .dictionary(let map): return (elementTable, map.values)
            default: return (elementTable, [])
            }
        }
    }
}

extension Realm {
    /// Registers a collection notifier (held to `budget`) whose delivery is nil (initial) or a
    /// change set.
    func addCollectionNotifier<Computer: ChangeComputer>(
        _ computer: Computer, budget: ComputeBudget? = nil, _ deliver: @escaping (CollectionChangeSet?) -> Void
    ) -> NotificationToken where Computer.Change == CollectionChangeSet {
        addNotifier(computer, budget: budget) { delivery, _ in
            switch delivery {
            case .initial: deliver(nil)
            case .change(_, let change, _, _): deliver(change)
            }
        }
    }
}
