import Foundation
import Hummingbird
import HummingbirdTesting
import LiveQuery
import NIOPosix
import Strata

/// Runs `body` against the example service on a live server: a store on an in-memory Realm, on a
/// one-thread loop group of its own that is shut down afterwards.
func withLiveQueryService<Value: Sendable>(
    maxPendingMessages: Int = 256,
    _ body: @escaping @Sendable (any TestClientProtocol, TodoStore) async throws -> Value
) async throws -> Value {
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    do {
        let value = try await run(on: group, maxPendingMessages: maxPendingMessages, body)
        try await group.shutdownGracefully()
        return value
    } catch {
        try await group.shutdownGracefully()
        throw error
    }
}

private func run<Value: Sendable>(
    on group: MultiThreadedEventLoopGroup, maxPendingMessages: Int,
    _ body: @escaping @Sendable (any TestClientProtocol, TodoStore) async throws -> Value
) async throws -> Value {
    let configuration = Realm.Configuration(inMemoryIdentifier: "live-query-\(UUID())")
    let store = try await TodoStore.open(configuration: configuration, on: group.next())
    let app = buildApplication(
        store: store,
        configuration: LiveQueryServiceConfiguration(address: .hostname("127.0.0.1", port: 0),
                                                     maxPendingMessages: maxPendingMessages))
    return try await app.test(.live) { client in try await body(client, store) }
}

/// JSON requests and responses of the REST API.
extension TestClientProtocol {
    /// Sends `method uri` with `body` encoded as JSON (or `rawBody` as is).
    func send(_ method: HTTPRequest.Method, _ uri: String, json body: (any Encodable & Sendable)? = nil,
              rawBody: String? = nil) async throws -> TestResponse {
        var buffer: ByteBuffer?
        if let body { buffer = ByteBuffer(bytes: try JSONEncoder().encode(body)) }
        if let rawBody { buffer = ByteBuffer(string: rawBody) }
        return try await execute(uri: uri, method: method, headers: [.contentType: "application/json"], body: buffer)
    }

    /// Creates an item and returns it as stored.
    func create(_ title: String, priority: Int = 0, done: Bool = false) async throws -> TodoJSON {
        let response = try await send(.post, "/todos", json: NewTodo(title: title, done: done, priority: priority))
        guard response.status == .created else { throw UnexpectedResponse(response) }
        return try response.decoded(TodoJSON.self)
    }

    /// The items `GET /todos?query` lists.
    func list(_ query: String = "") async throws -> [TodoJSON] {
        let response = try await send(.get, "/todos" + (query.isEmpty ? "" : "?" + query))
        guard response.status == .ok else { throw UnexpectedResponse(response) }
        return try response.decoded([TodoJSON].self)
    }
}

extension TestResponse {
    /// The body decoded from JSON.
    func decoded<Body: Decodable>(_ type: Body.Type) throws -> Body {
        try JSONDecoder().decode(type, from: Data(buffer: body))
    }
}

/// A response whose status the test did not expect.
struct UnexpectedResponse: Error, CustomStringConvertible {
    let description: String
    init(_ response: TestResponse) { description = "\(response.status): \(String(buffer: response.body))" }
}
