#if canImport(Glibc)
import Glibc
#endif
import Foundation
import StrataEngine

/// The mutable state of a Realm on one thread: its pinned version, its write transaction and
/// its cache of tables.
///
/// Realm Swift caches Realm instances per thread and configuration, so a second `Realm()` on a
/// thread is the same Realm, sharing its write transaction (opening a Realm inside a `write {}`
/// block and adding to it is common). Here every `Realm` value opened for the same store on the
/// same thread shares one `RealmState`; the state lives while any Realm or managed object of
/// that thread refers to it.
final class RealmState {
    var pinned: PinnedSnapshot? {
        didSet { generation &+= 1 }
    }
    var writeState: Realm.WriteState = .none {
        didSet { generation &+= 1 }
    }
    var tableInfos: [ObjectIdentifier: TableInfo] = [:]
    /// The model classes the Realm opened with (its schema).
    var schemaClasses: [ClassInfo] = []
    /// `Realm.observe` blocks, in registration order.
    var realmObservers: [(id: Int, block: Realm.NotificationBlock)] = []
    var nextObserverID = 0
    /// Changes whenever what the Realm reads may have changed (a new version, a write begun,
    /// committed or cancelled); together with the write's instruction count it keys the row
    /// caches of managed objects.
    private(set) var generation: UInt64 = 0

    /// The key under which a row read now may be cached: stale after any commit, refresh or
    /// write instruction.
    var readKey: ReadKey {
        if case .active(let transaction) = writeState {
            return ReadKey(generation: generation, instructions: transaction.instructions.count)
        }
        return ReadKey(generation: generation, instructions: 0)
    }

    struct ReadKey: Equatable {
        var generation: UInt64
        var instructions: Int
        static let none = ReadKey(generation: .max, instructions: -1)
    }
    let thread = pthread_self()

    private init(pinned: PinnedSnapshot) {
        self.pinned = pinned
    }

    deinit {
        if case .active(let transaction) = writeState { transaction.cancel() }
    }

    private final class WeakState {
        weak var state: RealmState?
        init(_ state: RealmState) { self.state = state }
    }

    private static let threadKey = "io.strata.realm-states"

    /// The state for `store` on the calling thread, creating it (and pinning the newest
    /// version) if there is none.
    ///
    /// - Returns: the state and whether it was just created.
    static func forCurrentThread(store: Store) throws -> (RealmState, isNew: Bool) {
        let dictionary = Thread.current.threadDictionary
        let key = "\(threadKey).\(ObjectIdentifier(store).hashValue)"
        if let box = dictionary[key] as? WeakState, let state = box.state { return (state, false) }
        let state = RealmState(pinned: try store.pin())
        dictionary[key] = WeakState(state)
        return (state, true)
    }
}
