import Hummingbird
import HummingbirdWebSocket
import NIOWebSocket

/// `GET /todos/live?filter=…&sort=…` upgraded to a WebSocket that streams the query's
/// ``LiveQueryMessage``s: the initial result, then each change set, in commit order. A query that
/// does not run is refused before the upgrade (400). Messages from the client are ignored; the
/// stream ends when the client closes. A client that falls `maxPendingMessages` messages behind
/// is disconnected with close code 1008 (see ``LiveQueryFeed``).
struct LiveQueryRoute: Sendable {
    let store: TodoStore
    let maxPendingMessages: Int

    func register(on router: Router<BasicWebSocketRequestContext>) {
        router.ws("todos/live") { request, _ in
            try await store.validate(try TodoQuery(request))
            return .upgrade([:])
        } onUpgrade: { inbound, outbound, context in
            let feed = try await store.liveQuery(try TodoQuery(context.request),
                                                 maxPendingMessages: maxPendingMessages)
            do {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for try await _ in inbound {}
                    }
                    group.addTask {
                        for try await message in feed { try await outbound.writeTextMessage(message) }
                    }
                    try await group.next()
                    group.cancelAll()
                }
            } catch let overflow as LiveQueryFeed.Overflow {
                context.logger.notice("Closing a live query: \(overflow)")
                try await outbound.close(.policyViolation, reason: "too slow: reconnect for a fresh result")
            }
        }
    }
}
