import NIOCore
import Strata
import StrataNIO

/// The application's Realm, confined to one event loop, and the operations the routes need.
///
/// Every operation runs on the Realm's loop (``EventLoopRealm/perform(_:)``) and returns
/// `Sendable` copies (``TodoJSON``), never live objects. Writes wait for durability on that loop,
/// so the store's loop should be one of its own (a one-thread `MultiThreadedEventLoopGroup`), not
/// one that serves HTTP connections.
public struct TodoStore: Sendable {
    let handle: EventLoopRealm

    /// The loop the Realm is confined to.
    public var eventLoop: any EventLoop { handle.eventLoop }

    /// Opens the store's Realm on `eventLoop`.
    ///
    /// - Parameters:
    ///   - configuration: The Realm's configuration; its object types are set to the model's.
    ///   - eventLoop: The loop the Realm is confined to.
    /// - Throws: `Realm.Error` when the file cannot be opened.
    public static func open(configuration: Realm.Configuration, on eventLoop: any EventLoop) async throws -> TodoStore {
        var configuration = configuration
        configuration.objectTypes = [Todo.self]
        return TodoStore(handle: try await eventLoop.makeRealm(configuration: configuration).get())
    }

    /// The items `query` selects, in its order.
    ///
    /// - Throws: ``APIError`` `invalidQuery`.
    public func list(_ query: TodoQuery) async throws -> [TodoJSON] {
        try await handle.perform { realm in try query.results(in: realm).map(TodoJSON.init) }
    }

    /// Checks that `query` runs, without reading its results.
    ///
    /// - Throws: ``APIError`` `invalidQuery`.
    public func validate(_ query: TodoQuery) async throws {
        try await handle.perform { realm in _ = try query.results(in: realm) }
    }

    /// The item with the primary key `id`.
    ///
    /// - Throws: ``APIError`` `invalidID` or `notFound`.
    public func get(id: String) async throws -> TodoJSON {
        let key = try Self.objectId(id)
        return try await handle.perform { realm in TodoJSON(try Self.find(key, in: realm)) }
    }

    /// Adds an item.
    ///
    /// - Returns: The item as stored, with its new id.
    /// - Throws: ``APIError`` `invalidInput`.
    public func create(_ new: NewTodo) async throws -> TodoJSON {
        let new = try new.validated()
        return try await handle.perform { realm in
            let todo = Todo()
            todo.title = new.title
            todo.done = new.done ?? false
            todo.priority = new.priority ?? 0
            try realm.write { realm.add(todo) }
            return TodoJSON(todo)
        }
    }

    /// Changes the fields `patch` gives of the item with the primary key `id`.
    ///
    /// - Returns: The item as stored.
    /// - Throws: ``APIError`` `invalidID`, `notFound` or `invalidInput`.
    public func update(id: String, _ patch: TodoPatch) async throws -> TodoJSON {
        let key = try Self.objectId(id)
        let patch = try patch.validated()
        return try await handle.perform { realm in
            let todo = try Self.find(key, in: realm)
            try realm.write {
                if let title = patch.title { todo.title = title }
                if let done = patch.done { todo.done = done }
                if let priority = patch.priority { todo.priority = priority }
            }
            return TodoJSON(todo)
        }
    }

    /// Deletes the item with the primary key `id`.
    ///
    /// - Throws: ``APIError`` `invalidID` or `notFound`.
    public func delete(id: String) async throws {
        let key = try Self.objectId(id)
        try await handle.perform { realm in
            let todo = try Self.find(key, in: realm)
            try realm.write { realm.delete(todo) }
        }
    }

    /// Starts a live query: see ``LiveQueryFeed``.
    ///
    /// - Throws: ``APIError`` `invalidQuery`.
    public func liveQuery(_ query: TodoQuery, maxPendingMessages: Int) async throws -> LiveQueryFeed {
        try await LiveQueryFeed.start(query, on: handle, maxPendingMessages: maxPendingMessages)
    }

    // MARK: - Keys

    private static func objectId(_ id: String) throws -> ObjectId {
        do {
            return try ObjectId(string: id)
        } catch {
            throw APIError(.invalidID, "'\(id.prefix(64))' is not an object id (24 hexadecimal digits)")
        }
    }

    private static func find(_ key: ObjectId, in realm: Realm) throws -> Todo {
        guard let todo = realm.object(ofType: Todo.self, forPrimaryKey: key) else {
            throw APIError(.notFound, "no to-do item has the id \(key.stringValue)")
        }
        return todo
    }
}
