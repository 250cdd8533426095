import Strata

/// A to-do item as the API sends it: a `Sendable` copy of a `Todo`, made on the Realm's loop.
public struct TodoJSON: Codable, Sendable, Equatable {
    /// The primary key, as 24 hexadecimal digits.
    public var id: String
    public var title: String
    public var done: Bool
    public var priority: Int

    /// Creates the API's copy of a to-do item.
    public init(id: String, title: String, done: Bool, priority: Int) {
        self.id = id
        self.title = title
        self.done = done
        self.priority = priority
    }

    /// Copies `todo` (on its Realm's loop).
    init(_ todo: Todo) {
        self.init(id: todo.id.stringValue, title: todo.title, done: todo.done, priority: todo.priority)
    }
}

/// The body of `POST /todos`.
public struct NewTodo: Codable, Sendable {
    public var title: String
    public var done: Bool?
    public var priority: Int?

    /// Creates the body of a create request.
    public init(title: String, done: Bool? = nil, priority: Int? = nil) {
        self.title = title
        self.done = done
        self.priority = priority
    }
}

/// The body of `PATCH /todos/:id`: the fields to change.
public struct TodoPatch: Codable, Sendable {
    public var title: String?
    public var done: Bool?
    public var priority: Int?

    /// Creates the body of an update request.
    public init(title: String? = nil, done: Bool? = nil, priority: Int? = nil) {
        self.title = title
        self.done = done
        self.priority = priority
    }
}

// MARK: - Validation

/// The limits on what clients may store.
enum TodoLimits {
    static let titleLength = 1...200
    static let priority = 0...100
}

extension NewTodo {
    /// Checks the fields against ``TodoLimits``.
    ///
    /// - Throws: ``APIError`` `invalidInput`.
    func validated() throws -> NewTodo {
        try validateTitle(title)
        if let priority { try validatePriority(priority) }
        return self
    }
}

extension TodoPatch {
    /// Checks the fields given against ``TodoLimits``.
    ///
    /// - Throws: ``APIError`` `invalidInput`.
    func validated() throws -> TodoPatch {
        if let title { try validateTitle(title) }
        if let priority { try validatePriority(priority) }
        return self
    }
}

private func validateTitle(_ title: String) throws {
    guard TodoLimits.titleLength.contains(title.count), !title.allSatisfy(\.isWhitespace) else {
        throw APIError(.invalidInput, "title must have 1 to \(TodoLimits.titleLength.upperBound) characters, "
                       + "not only spaces")
    }
}

private func validatePriority(_ priority: Int) throws {
    guard TodoLimits.priority.contains(priority) else {
        throw APIError(.invalidInput, "priority must be between \(TodoLimits.priority.lowerBound) and "
                       + "\(TodoLimits.priority.upperBound), not \(priority)")
    }
}
