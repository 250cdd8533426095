import Foundation
import NIOCore
import Strata
import StrataNIO
import Testing

/// One notification, as the observer saw it on the loop.
private struct Delivery: Sendable, Equatable {
    var onLoop: Bool
    var count: Int
    var insertions: [Int]
}

/// Realms confined to a swift-nio `EventLoop`: every delivery runs on the loop, in commit order.
@Suite("Realm on a swift-nio event loop", .timeLimit(.minutes(2)))
struct EventLoopRealmTests {
    /// Registers an observer of every `LoopNote` on `store`'s loop that reports each delivery to
    /// the returned stream; the token is kept on the loop.
    private func observeNotes(
        _ store: EventLoopRealm
    ) async throws -> (AsyncStream<Delivery>, NIOLoopBound<NotificationToken>) {
        let (deliveries, continuation) = AsyncStream.makeStream(of: Delivery.self)
        let loop = store.eventLoop
        let token = try await store.perform { realm in
            let token = realm.objects(LoopNote.self).sorted(byKeyPath: "id").observe { change in
                switch change {
                case .initial(let notes):
                    continuation.yield(Delivery(onLoop: loop.inEventLoop, count: notes.count, insertions: []))
                case .update(let notes, _, let insertions, _):
                    continuation.yield(Delivery(onLoop: loop.inEventLoop, count: notes.count, insertions: insertions))
                case .error:
                    continuation.finish()
                }
            }
            return NIOLoopBound(token, eventLoop: loop)
        }
        return (deliveries, token)
    }

    /// Adds `LoopNote(id)` through `store` (on its loop).
    private func add(_ id: Int, through store: EventLoopRealm) async throws {
        try await store.perform { realm in
            try realm.write { realm.add(LoopNote(value: ["id": id, "text": "note \(id)"])) }
        }
    }

    @Test("a Realm on an event loop sees each write from another thread in a notification on its loop, in commit order")
    func notificationsForWritesElsewhere() async throws {
        try await withEventLoops(threads: 2) { loops in
            let configuration = loopConfiguration("writes-elsewhere")
            let observed = try await loops[0].makeRealm(configuration: configuration).get()
            let writer = try await loops[1].makeRealm(configuration: configuration).get()
            let (deliveries, token) = try await observeNotes(observed)
            var next = deliveries.makeAsyncIterator()
            #expect(await next.next() == Delivery(onLoop: true, count: 0, insertions: []))
            for id in 1...5 {
                try await add(id, through: writer)
                #expect(await next.next() == Delivery(onLoop: true, count: id, insertions: [id - 1]))
            }
            try await observed.eventLoop.submit { token.value.invalidate() }.get()
        }
    }

    @Test("commits made faster than the loop delivers arrive as ordered change sets that add up to the final result")
    func coalescedDeliveriesKeepCommitOrder() async throws {
        try await withEventLoops(threads: 2) { loops in
            let configuration = loopConfiguration("coalesced")
            let observed = try await loops[0].makeRealm(configuration: configuration).get()
            let writer = try await loops[1].makeRealm(configuration: configuration).get()
            let (deliveries, token) = try await observeNotes(observed)
            var next = deliveries.makeAsyncIterator()
            #expect(await next.next()?.count == 0)
            let commits = 20
            let writes = (1...commits).map { id in
                writer.submit { realm in
                    try realm.write { realm.add(LoopNote(value: ["id": id])) }
                }
            }
            var seen = 0
            while seen < commits, let delivery = await next.next() {
                #expect(delivery.onLoop)
                // Ids are added in ascending order, so each change set appends to the sorted results.
                #expect(delivery.insertions == Array(seen..<delivery.count))
                seen = delivery.count
            }
            #expect(seen == commits)
            for write in writes { try await write.get() }
            try await observed.eventLoop.submit { token.value.invalidate() }.get()
        }
    }

    @Test("Realm and object observers of a Realm on an event loop are called on the loop for a write from another loop")
    func realmAndObjectObserversOnLoop() async throws {
        try await withEventLoops(threads: 2) { loops in
            let configuration = loopConfiguration("realm-object-observers")
            let observed = try await loops[0].makeRealm(configuration: configuration).get()
            let writer = try await loops[1].makeRealm(configuration: configuration).get()
            try await add(1, through: writer)
            let loop = observed.eventLoop
            let (events, continuation) = AsyncStream.makeStream(of: String.self)
            let tokens = try await observed.perform { realm in
                realm.refresh()
                let note = realm.object(ofType: LoopNote.self, forPrimaryKey: 1)!
                let realmToken = realm.observe { notification, _ in
                    continuation.yield("realm \(notification) on loop: \(loop.inEventLoop)")
                }
                let objectToken = note.observe(keyPaths: ["text"]) { (change: ObjectChange<LoopNote>) in
                    if case .change(let note, _) = change {
                        continuation.yield("object \(note.text) on loop: \(loop.inEventLoop)")
                    }
                }
                return NIOLoopBound([realmToken, objectToken], eventLoop: loop)
            }
            try await writer.perform { realm in
                try realm.write { realm.object(ofType: LoopNote.self, forPrimaryKey: 1)!.text = "edited" }
            }
            var next = events.makeAsyncIterator()
            var seen = [await next.next(), await next.next()].compactMap { $0 }
            seen.sort()
            #expect(seen == ["object edited on loop: true", "realm didChange on loop: true"])
            try await loop.submit { for token in tokens.value { token.invalidate() } }.get()
        }
    }

    @Test("writeAsync runs each block and its completion on the Realm's loop, in the order queued")
    func writeAsyncOnLoop() async throws {
        try await withEventLoops(threads: 1) { loops in
            let store = try await loops[0].makeRealm(configuration: loopConfiguration("write-async")).get()
            let loop = store.eventLoop
            let (events, continuation) = AsyncStream.makeStream(of: String.self)
            try await store.perform { realm in
                for id in 1...3 {
                    realm.writeAsync {
                        realm.add(LoopNote(value: ["id": id]))
                        continuation.yield("block \(id) on loop: \(loop.inEventLoop)")
                    } onComplete: { error in
                        let outcome = error.map { "\($0)" } ?? "none"
                        continuation.yield("complete \(id) on loop: \(loop.inEventLoop), error: \(outcome)")
                        if id == 3 { continuation.finish() }
                    }
                }
            }
            var seen: [String] = []
            for await event in events { seen.append(event) }
            #expect(seen == (1...3).flatMap { id in
                ["block \(id) on loop: true", "complete \(id) on loop: true, error: none"]
            })
            #expect(try await store.perform { realm in realm.objects(LoopNote.self).count } == 3)
        }
    }

    @Test("makeRealm called off the loop fails its future with the Realm.Error the open threw")
    func makeRealmFailure() async throws {
        try await withEventLoops(threads: 1) { loops in
            let missing = URL(fileURLWithPath: "/nonexistent-\(UUID())/missing.realm")
            var configuration = Realm.Configuration(fileURL: missing)
            configuration.readOnly = true
            configuration.objectTypes = [LoopNote.self]
            await #expect(throws: Realm.Error.self) {
                _ = try await loops[0].makeRealm(configuration: configuration).get()
            }
        }
    }

    @Test("EventLoopScheduler runs work on the loop after the call returns, in the order scheduled")
    func schedulerOrder() async throws {
        try await withEventLoops(threads: 1) { loops in
            let scheduler = EventLoopScheduler(eventLoop: loops[0])
            #expect(!scheduler.isOnSchedulerThread)
            let (events, continuation) = AsyncStream.makeStream(of: String.self)
            loops[0].execute {
                for index in 1...3 {
                    scheduler.schedule {
                        continuation.yield("work \(index) on loop: \(scheduler.isOnSchedulerThread)")
                        if index == 3 { continuation.finish() }
                    }
                }
                continuation.yield("scheduled")
            }
            var seen: [String] = []
            for await event in events { seen.append(event) }
            #expect(seen == ["scheduled", "work 1 on loop: true", "work 2 on loop: true", "work 3 on loop: true"])
        }
    }
}
