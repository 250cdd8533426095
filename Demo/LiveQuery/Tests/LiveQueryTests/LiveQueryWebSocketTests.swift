import Foundation
import Hummingbird
import HummingbirdTesting
import HummingbirdWSTesting
import LiveQuery
import NIOConcurrencyHelpers
import Testing

/// What a WebSocket client received, kept for the test to check after the connection closed.
private final class Transcript: Sendable {
    private let messages = NIOLockedValueBox<[LiveQueryMessage]>([])
    func append(_ message: LiveQueryMessage) { messages.withLockedValue { $0.append(message) } }
    var all: [LiveQueryMessage] { messages.withLockedValue { $0 } }
}

/// A client's copy of a live query's result, kept up to date by applying its messages as the
/// message's documentation says.
private func apply(_ message: LiveQueryMessage, to result: inout [TodoJSON]) {
    switch message.type {
    case .initial:
        result = message.objects ?? []
    case .update:
        for index in (message.deletions ?? []).reversed() { result.remove(at: index) }
        for (index, todo) in zip(message.insertions ?? [], message.inserted ?? []) { result.insert(todo, at: index) }
        for (index, todo) in zip(message.modificationsInNewResult ?? [], message.modified ?? []) {
            result[index] = todo
        }
    }
}

extension LiveQueryTests {
    @Suite("The example's live-query WebSocket", .timeLimit(.minutes(2)))
    struct LiveQueryWebSocketTests {
        @Test("a WebSocket client gets the initial result, then each write's change set in order, with the objects")
        func streamsChangeSets() async throws {
            try await withLiveQueryService { client, _ in
                let first = try await client.create("first", priority: 5)
                let transcript = Transcript()
                let expectedWrites = LockedWrites()
                try await client.ws("/todos/live?sort=priority") { inbound, _, _ in
                    var messages = inbound.messages(maxSize: 1 << 20).makeAsyncIterator()
                    func receive() async throws {
                        guard case .text(let text)? = try await messages.next() else { return }
                        transcript.append(try JSONDecoder().decode(LiveQueryMessage.self, from: Data(text.utf8)))
                    }
                    try await receive()                                                   // initial: [first]
                    expectedWrites.set("second", try await client.create("second", priority: 1))
                    try await receive()                                                   // [second, first]
                    _ = try await client.send(.patch, "/todos/\(first.id)", json: TodoPatch(priority: 0))
                    try await receive()                                                   // [first, second]: a move
                    _ = try await client.send(.patch, "/todos/\(first.id)", json: TodoPatch(title: "renamed"))
                    try await receive()                                                   // a modification in place
                    _ = try await client.send(.delete, "/todos/\(expectedWrites.get("second")!.id)")
                    try await receive()                                                   // [first]
                }
                let second = try #require(expectedWrites.get("second"))
                var moved = first
                moved.priority = 0
                var renamed = moved
                renamed.title = "renamed"
                let messages = transcript.all
                try #require(messages.count == 5)
                #expect(messages[0].type == .initial && messages[0].objects == [first])
                #expect(messages[1].insertions == [0] && messages[1].inserted == [second] && messages[1].deletions == []
                        && messages[1].modifications == [])
                #expect(messages[2].deletions == [1] && messages[2].insertions == [0]
                        && messages[2].inserted == [moved])
                #expect(messages[3].modifications == [0] && messages[3].modificationsInNewResult == [0]
                        && messages[3].modified == [renamed] && messages[3].deletions == []
                        && messages[3].insertions == [])
                #expect(messages[4].deletions == [1] && messages[4].insertions == [] && messages[4].modifications == [])
                var replayed: [TodoJSON] = []
                for message in messages { apply(message, to: &replayed) }
                #expect(try await client.list("sort=priority") == replayed)
                #expect(replayed == [renamed])
            }
        }

        @Test("a filtered live query streams only the items that match, and a client replaying it holds what GET lists")
        func filteredLiveQuery() async throws {
            try await withLiveQueryService { client, _ in
                let transcript = Transcript()
                try await client.ws("/todos/live?filter=done%20==%20false&sort=title") { inbound, _, _ in
                    var messages = inbound.messages(maxSize: 1 << 20).makeAsyncIterator()
                    func receive() async throws {
                        guard case .text(let text)? = try await messages.next() else { return }
                        transcript.append(try JSONDecoder().decode(LiveQueryMessage.self, from: Data(text.utf8)))
                    }
                    try await receive()
                    let task = try await client.create("b task")
                    try await receive()
                    _ = try await client.create("a finished", done: true)     // does not match: no message
                    _ = try await client.create("c task")
                    try await receive()
                    _ = try await client.send(.patch, "/todos/\(task.id)", json: TodoPatch(done: true))
                    try await receive()
                }
                let messages = transcript.all
                try #require(messages.count == 4)
                var replayed: [TodoJSON] = []
                for message in messages { apply(message, to: &replayed) }
                #expect(replayed.map(\.title) == ["c task"])
                #expect(try await client.list("filter=done%20==%20false&sort=title") == replayed)
                #expect(messages[2].inserted?.map(\.title) == ["c task"])
                #expect(messages[3].deletions == [0])
            }
        }
    }
}

/// Items created inside the WebSocket handler, for the checks after it.
private final class LockedWrites: Sendable {
    private let items = NIOLockedValueBox<[String: TodoJSON]>([:])
    func set(_ name: String, _ todo: TodoJSON) { items.withLockedValue { $0[name] = todo } }
    func get(_ name: String) -> TodoJSON? { items.withLockedValue { $0[name] } }
}
