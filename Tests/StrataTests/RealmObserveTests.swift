import Foundation
@testable import Strata
import Testing

final class ObservedNote: Object {
    @Persisted var text: String
}

@Suite("Realm.observe")
struct RealmObserveTests {
    private func makeRealm() throws -> Realm {
        try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "observe-\(UUID())", objectTypes: [ObservedNote.self]))
    }

    @Test("a Realm observer runs synchronously after every local commit, even an empty one, in registration order")
    func localCommits() throws {
        let realm = try makeRealm()
        var calls: [String] = []
        let first = realm.observe { notification, observed in
            #expect(observed === realm)
            calls.append("first \(notification)")
        }
        let second = realm.observe { notification, _ in calls.append("second \(notification)") }
        try realm.write { realm.add(ObservedNote(value: ["text": "a"])) }
        #expect(calls == ["first didChange", "second didChange"])
        try realm.write {}
        #expect(calls.count == 4)
        first.invalidate()
        first.invalidate()
        try realm.write {}
        #expect(calls.suffix(1) == ["second didChange"])
        second.invalidate()
        try realm.write {}
        #expect(calls.count == 5)
    }

    @Test("withoutNotifying skips exactly the given tokens for that commit")
    func withoutNotifying() throws {
        let realm = try makeRealm()
        var calls: [String] = []
        let skipped = realm.observe { _, _ in calls.append("skipped") }
        let other = realm.observe { _, _ in calls.append("other") }
        try realm.write(withoutNotifying: [skipped]) { realm.add(ObservedNote()) }
        #expect(calls == ["other"])
        realm.beginWrite()
        try realm.commitWrite(withoutNotifying: [other])
        #expect(calls == ["other", "skipped"])
        skipped.invalidate()
        other.invalidate()
    }

    @Test("refresh notifies when another thread's commit moved the Realm forward, and not otherwise")
    func refreshAfterOtherThread() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("observe-\(UUID()).strata")
        let configuration = Realm.Configuration(fileURL: path, objectTypes: [ObservedNote.self])
        let realm = try Realm(configuration: configuration)
        var calls = 0
        let token = realm.observe { _, _ in calls += 1 }
        #expect(realm.refresh() == false)
        #expect(calls == 0)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let other = try! Realm(configuration: configuration)
            try! other.write { other.add(ObservedNote(value: ["text": "from another thread"])) }
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(realm.objects(ObservedNote.self).count == 0)   // still at its version
        #expect(realm.refresh() == true)
        #expect(calls == 1)
        #expect(realm.objects(ObservedNote.self).count == 1)
        token.invalidate()
    }
}

@Suite("A failed write")
struct FailedWriteTests {
    @Test("objects added before a failure in the same write read defaults instead of trapping, and write throws")
    func readsAfterFailure() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "failed-\(UUID())", objectTypes: [ObservedNote.self]))
        let note = ObservedNote(value: ["text": "kept?"])
        #expect(throws: Realm.Error.self) {
            try realm.write {
                realm.add(note)
                realm.create(ObservedNote.self, value: ["text": String(repeating: "x", count: 0xFF_FFFF)])
                #expect(note.text == "")
            }
        }
        #expect(realm.objects(ObservedNote.self).count == 0)
        #expect(note.isInvalidated)
    }
}
