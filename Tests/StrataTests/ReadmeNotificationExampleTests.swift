import Foundation
import Strata
import Testing
import StrataTestSupport

// The README's notification example, kept compiling and running; `print` is replaced by a log
// the test reads.

private actor PuppyWatcher {
    let loop: LibUVEventLoop
    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }
    private var realm: Realm?
    private var token: NotificationToken?
    let log: LoopHarness

    init(loop: LibUVEventLoop, log: LoopHarness) {
        self.loop = loop
        self.log = log
    }

    func start(_ configuration: Realm.Configuration) throws {
        let realm = try Realm(configuration: configuration)
        let puppies = realm.objects(ReadmeDog.self).where { $0.age < 2 }.sorted(byKeyPath: "name")
        let log = self.log
        token = puppies.observe(keyPaths: ["name", "owner.name"]) { change in
            switch change {
            case .initial(let puppies):
                log.record("\(puppies.count) puppies")
            case .update(let puppies, let deletions, let insertions, let modifications):
                log.record("\(deletions) \(insertions) \(modifications) \(puppies.count)")
            case .error(let error):
                log.record("\(error)")
            }
        }
        self.realm = realm
    }

    func nextRename(of id: ObjectId) async -> String? {
        guard let dog = realm?.object(ofType: ReadmeDog.self, forPrimaryKey: id) else { return nil }
        let changes = dog.changes(keyPaths: ["name"])
        log.record("watching")
        for await case .change(let dog, _) in changes { return dog.name }
        return nil
    }

    func stop() {
        token?.invalidate()
        realm = nil
    }
}

@Suite("README notification example")
struct ReadmeNotificationExampleTests {
    @Test("the watcher actor receives the initial count, an update, and a rename")
    func watcher() async throws {
        let log = try LoopHarness()
        let configuration = Realm.Configuration(inMemoryIdentifier: UUID().uuidString,
                                                objectTypes: [ReadmePerson.self, ReadmeDog.self])
        // A Realm on the loop thread keeps the in-memory store alive and writes (the test's own
        // code may resume on any thread after an await, where a Realm must not be used).
        let keeper = UncheckedBox<Realm?>(nil)
        let id = ObjectId.generate()
        try log.run {
            let realm = try Realm(configuration: configuration)
            try realm.write { realm.create(ReadmeDog.self, value: ["id": id, "name": "Rex", "age": 1]) }
            keeper.value = realm
        }

        let watcher = PuppyWatcher(loop: log.loop, log: log)
        try await watcher.start(configuration)
        #expect(await log.events(atLeast: 1) == ["1 puppies"])

        let rename = Task(executorPreference: log.loop) { await watcher.nextRename(of: id) }
        #expect(await log.events(atLeast: 2).last == "watching")
        try log.run {
            let realm = keeper.value!
            try realm.write { realm.object(ofType: ReadmeDog.self, forPrimaryKey: id)!.name = "Ace" }
        }
        #expect(await rename.value == "Ace")
        #expect(await log.events(atLeast: 3).last == "[] [] [0] 1")
        await watcher.stop()
        log.run { keeper.value = nil }
    }
}
