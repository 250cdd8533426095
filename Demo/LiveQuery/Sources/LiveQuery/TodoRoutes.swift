import Hummingbird
import HummingbirdWebSocket

/// The REST endpoints:
/// - `GET /todos?filter=…&sort=…`: the items, optionally filtered (Realm Query Language) and sorted;
/// - `POST /todos`: creates an item from `{"title": …, "done": …, "priority": …}` (201);
/// - `GET`, `PATCH`, `DELETE /todos/:id`: one item by primary key (`DELETE` answers 204).
struct TodoRoutes: Sendable {
    let store: TodoStore

    func register(on router: Router<BasicWebSocketRequestContext>) {
        let todos = router.group("todos")
        todos.get { request, _ in
            try await store.list(try TodoQuery(request))
        }
        todos.post { request, context in
            let new = try await decode(NewTodo.self, request, context)
            return EditedResponse(status: .created, response: try await store.create(new))
        }
        todos.get(":id") { _, context in
            try await store.get(id: try context.parameters.require("id"))
        }
        todos.patch(":id") { request, context in
            let patch = try await decode(TodoPatch.self, request, context)
            return try await store.update(id: try context.parameters.require("id"), patch)
        }
        todos.delete(":id") { _, context in
            try await store.delete(id: try context.parameters.require("id"))
            return HTTPResponse.Status.noContent
        }
    }

    /// Decodes a JSON body; Hummingbird's decoding failures become ``APIError`` `invalidInput`.
    private func decode<Body: Decodable>(_ type: Body.Type, _ request: Request,
                                         _ context: BasicWebSocketRequestContext) async throws -> Body {
        do {
            return try await request.decode(as: type, context: context)
        } catch let error as HTTPError {
            throw APIError.invalidBody(error)
        }
    }
}

extension TodoJSON: ResponseCodable {}

extension TodoQuery {
    /// The query of a request's `filter` and `sort` parameters.
    ///
    /// - Throws: ``APIError`` `invalidQuery` (see ``init(filter:sort:)``).
    init(_ request: Request) throws {
        let parameters = request.uri.queryParameters
        try self.init(filter: parameters["filter"].map(String.init), sort: parameters["sort"].map(String.init))
    }
}
