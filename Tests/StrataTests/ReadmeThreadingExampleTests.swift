import Foundation
import Strata
import Testing

final class ReadmeContact: Object {
    override class func className() -> String { "Contact" }
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
    @Persisted var group: String
}

// The threading example of the DocC article Threading (Sources/Strata/Strata.docc/Threading.md),
// kept compiling and running.
@Suite("README threading example")
struct ReadmeThreadingExampleTests {
    @Test("hand-over, a frozen snapshot read by 8 threads, and sections, as the README shows")
    func example() throws {
        let configuration = Realm.Configuration(inMemoryIdentifier: UUID().uuidString,
                                                objectTypes: [ReadmeDog.self, ReadmePerson.self, ReadmeContact.self])
        let realm = try Realm(configuration: configuration)
        try realm.write {
            realm.add(ReadmeDog(value: ["id": ObjectId.generate(), "name": "Rex"] as [String: Any]))
            realm.add(ReadmeContact(value: ["id": 1, "name": "Ada", "group": "friends"]))
        }
        let dog = realm.objects(ReadmeDog.self).first!
        let loop = try LibUVEventLoop.startThread(name: "readme")
        defer { loop.shutdownAndWait() }
        let resolved = DispatchSemaphore(value: 0)
        let name = LockedName()

        let reference = ThreadSafeReference(to: dog)
        loop.execute {
            let realm = try! Realm(configuration: configuration)
            if let dog = realm.resolve(reference) { name.set(dog.name) }
            resolved.signal()
        }
        resolved.wait()
        #expect(name.get() == "Rex")

        let snapshot = Frozen(realm.objects(ReadmeDog.self))
        DispatchQueue.concurrentPerform(iterations: 8) { _ in _ = snapshot.value.count }
        #expect(snapshot.value.count == 1)

        let byGroup = realm.objects(ReadmeContact.self)
            .sectioned(by: \.group, sortDescriptors: [SortDescriptor(keyPath: "group"), SortDescriptor(keyPath: "name")])
        #expect(byGroup.allKeys == ["friends"] && byGroup[0].count == 1 && byGroup[IndexPath(item: 0, section: 0)].name == "Ada")
    }
}

private final class LockedName: @unchecked Sendable {
    private let lock = NSLock()
    private var name: String?
    func set(_ value: String) { lock.withLock { name = value } }
    func get() -> String? { lock.withLock { name } }
}

// The events example of the DocC article ModelsAndWrites.
@Suite("README events example")
struct ReadmeEventsExampleTests {
    @Test("a scope records a read and a write; a custom event needs no scope")
    func example() throws {
        var configuration = Realm.Configuration(inMemoryIdentifier: UUID().uuidString,
                                                objectTypes: [ReadmeDog.self, ReadmePerson.self])
        configuration.eventConfiguration = EventConfiguration(metadata: ["user": "ada"])
        let realm = try Realm(configuration: configuration)
        try realm.write { realm.add(ReadmeDog(value: ["id": ObjectId.generate(), "name": "Rex"] as [String: Any])) }

        let scope = realm.events!.beginScope(activity: "adopt")
        let rex = realm.objects(ReadmeDog.self).where { $0.name == "Rex" }.first
        try realm.write { rex?.age += 1 }
        var failure: (any Error)?
        scope.commit { error in if let error { failure = error } }
        realm.events!.recordEvent(activity: "session", eventType: "login", data: "{}")
        #expect(failure == nil && !scope.isActive && rex?.age == 2)
    }
}
