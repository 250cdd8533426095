import NIOCore
import Strata
import StrataNIO
import Testing

/// An actor that runs on an event loop (its executor is the loop), owning a Realm confined to
/// that loop: where a Realm's async sequences are consumed in swift-nio code.
private actor LoopObserver {
    let loop: any EventLoop
    private var iteration: Task<Void, Never>?
    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.executor.asUnownedSerialExecutor() }

    init(loop: any EventLoop) { self.loop = loop }

    /// Iterates the changes of every note until the results hold `count` notes, reporting each
    /// element (whether it arrived on the loop, the results' count) to `progress`.
    func watch(_ configuration: Realm.Configuration, until count: Int,
               progress: AsyncStream<(onLoop: Bool, count: Int)>.Continuation) throws {
        let realm = try Realm(configuration: configuration, eventLoop: loop)
        iteration = Task { [self] in
            await iterate(realm.objects(LoopNote.self).changes, until: count, progress: progress)
        }
    }

    /// Waits until the iteration has ended and its observation was handed back to the loop.
    func finished() async { await iteration?.value }

    private func iterate(_ changes: AsyncStream<RealmCollectionChange<Results<LoopNote>>>, until count: Int,
                         progress: AsyncStream<(onLoop: Bool, count: Int)>.Continuation) async {
        for await change in changes {
            switch change {
            case .initial(let notes), .update(let notes, _, _, _):
                progress.yield((loop.inEventLoop, notes.count))
                if notes.count >= count { progress.finish(); return }
            case .error:
                progress.finish()
                return
            }
        }
    }
}

@Suite("Async sequences of a Realm on an event loop", .timeLimit(.minutes(2)))
struct AsyncChangesOnLoopTests {
    @Test("results.changes yields on the loop to an actor whose executor is the loop, one element per commit, in order")
    func changesOnLoopActor() async throws {
        try await withEventLoops(threads: 2) { loops in
            let configuration = loopConfiguration("async-changes")
            let writer = try await loops[1].makeRealm(configuration: configuration).get()
            let observer = LoopObserver(loop: loops[0])
            let (progress, continuation) = AsyncStream.makeStream(of: (onLoop: Bool, count: Int).self)
            try await observer.watch(configuration, until: 3, progress: continuation)
            var seen: [String] = []
            var next = progress.makeAsyncIterator()
            while let element = await next.next() {
                seen.append("\(element.count) on loop: \(element.onLoop)")
                if element.count < 3 {
                    let id = element.count + 1
                    try await writer.perform { realm in try realm.write { realm.add(LoopNote(value: ["id": id])) } }
                }
            }
            await observer.finished()
            #expect(seen == (0...3).map { "\($0) on loop: true" })
        }
    }
}
