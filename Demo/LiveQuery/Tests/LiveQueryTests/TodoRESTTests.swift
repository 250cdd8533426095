import Foundation
import Hummingbird
import HummingbirdTesting
import LiveQuery
import Testing

extension LiveQueryTests {
    @Suite("The example's REST endpoints", .timeLimit(.minutes(2)))
    struct TodoRESTTests {
        @Test("POST creates an item, GET lists and reads it, PATCH changes it, DELETE removes it")
        func crud() async throws {
            try await withLiveQueryService { client, _ in
                let milk = try await client.create("Buy milk", priority: 2)
                #expect(milk.title == "Buy milk" && milk.priority == 2 && !milk.done && milk.id.count == 24)
                #expect(try await client.list() == [milk])
                let read = try await client.send(.get, "/todos/\(milk.id)")
                #expect(read.status == .ok)
                #expect(try read.decoded(TodoJSON.self) == milk)

                let patched = try await client.send(.patch, "/todos/\(milk.id)", json: TodoPatch(done: true))
                #expect(patched.status == .ok)
                var done = milk
                done.done = true
                #expect(try patched.decoded(TodoJSON.self) == done)
                #expect(try await client.list() == [done])

                #expect(try await client.send(.delete, "/todos/\(milk.id)").status == .noContent)
                #expect(try await client.list() == [])
                #expect(try await client.send(.get, "/todos/\(milk.id)").status == .notFound)
            }
        }

        @Test("GET /todos filters with a Realm Query Language predicate and sorts by a property, descending with '-'")
        func filterAndSort() async throws {
            try await withLiveQueryService { client, _ in
                let low = try await client.create("low", priority: 1)
                let high = try await client.create("high", priority: 9, done: true)
                let middle = try await client.create("middle", priority: 5)
                #expect(try await client.list("sort=priority") == [low, middle, high])
                #expect(try await client.list("sort=-priority") == [high, middle, low])
                #expect(try await client.list("filter=done%20==%20false&sort=-title") == [middle, low])
                #expect(try await client.list("filter=priority%20%3E%203%20AND%20title%20BEGINSWITH%20'h'") == [high])
            }
        }

        @Test("bad input is answered 400 with a typed error, and the service keeps working", arguments: [
            ("POST", "/todos", #"{"title": "#, "invalidInput"),
            ("POST", "/todos", #"{"priority": 1}"#, "invalidInput"),
            ("POST", "/todos", #"{"title": 7}"#, "invalidInput"),
            ("POST", "/todos", #"{"title": "   "}"#, "invalidInput"),
            ("POST", "/todos", #"{"title": "ok", "priority": 1000}"#, "invalidInput"),
            ("GET", "/todos?filter=title%20==", "", "invalidQuery"),
            ("GET", "/todos?filter=colour%20==%20'red'", "", "invalidQuery"),
            ("GET", "/todos?filter=priority%20%3E%20$0", "", "invalidQuery"),
            ("GET", "/todos?sort=colour", "", "invalidQuery"),
            ("GET", "/todos/not-an-id", "", "invalidID"),
            ("PATCH", "/todos/123", #"{"done": true}"#, "invalidID"),
            ("GET", "/todos/live?filter=)", "", "invalidQuery"),
        ])
        func badInput(method: String, uri: String, body: String, code: String) async throws {
            try await withLiveQueryService { client, _ in
                let response = try await client.send(HTTPRequest.Method(method)!, uri,
                                                     rawBody: body.isEmpty ? nil : body)
                #expect(response.status == .badRequest)
                #expect(try response.decoded(APIError.Body.self).error.code.rawValue == code)
                _ = try await client.create("still working")
                #expect(try await client.list().count == 1)
            }
        }

        @Test("an id no item has is answered 404 by GET, PATCH and DELETE")
        func unknownID() async throws {
            try await withLiveQueryService { client, _ in
                let missing = "0123456789abcdef01234567"
                for method in [HTTPRequest.Method.get, .patch, .delete] {
                    let response = try await client.send(method, "/todos/\(missing)", json: TodoPatch(done: true))
                    #expect(response.status == .notFound)
                    #expect(try response.decoded(APIError.Body.self).error.code == .notFound)
                }
            }
        }
    }
}
