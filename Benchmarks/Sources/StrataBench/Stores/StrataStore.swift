import Foundation
import Strata
@_spi(Benchmarks) import StrataEngine

/// One Strata database: a Realm file in a fresh directory with the `BenchPerson` class, in the
/// durability of `pairing`. `realm` belongs to the thread that created the store; other threads
/// open their own Realm from `configuration`.
final class StrataStore {
    let configuration: Realm.Configuration
    let realm: Realm
    let sync: String
    /// With `commitClock: true`, the clock that stamps each commit (W7).
    let clock: StrataCommitClock?
    private let scratch = Scratch()

    /// Creates the store; `commitClock` registers a ``StrataCommitClock`` before the Realm opens,
    /// so that it is the store's first publish observer and stamps every commit before the
    /// notifier (which the Realm may start as it opens) sees it.
    init(_ pairing: Pairing, seededRows rows: Int64 = 0, commitClock: Bool = false) throws {
        configuration = Realm.Configuration(
            fileURL: URL(fileURLWithPath: scratch.file("bench.strata")), objectTypes: [BenchPerson.self],
            durability: pairing.strata)
        clock = commitClock ? try StrataCommitClock(configuration) : nil
        realm = try Realm(configuration: configuration)
        sync = "durability=.\(pairing.strata)"
        if rows > 0 { try seed(1...rows) }
    }

    /// Adds rows `ids` in one write transaction.
    func seed(_ ids: ClosedRange<Int64>) throws {
        try realm.write {
            for id in ids { realm.add(BenchPerson(PersonData(id: id))) }
        }
    }

    var count: Int {
        realm.refresh()
        return realm.objects(BenchPerson.self).count
    }

    /// The engine counters of the store behind the Realm (same store: the registry shares it).
    var statistics: StoreProbe {
        get throws { try StoreProbe(path: configuration.fileURL!.path, durability: configuration.durability) }
    }

    deinit { scratch.remove() }
}
