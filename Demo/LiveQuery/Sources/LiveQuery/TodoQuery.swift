import Strata

/// Which to-do items a list or a live query shows, and in what order: the `filter` (a Realm Query
/// Language predicate, e.g. `done == false AND priority > 2`) and `sort` (a property, with a
/// leading `-` for descending) query parameters.
public struct TodoQuery: Sendable, Equatable {
    /// The predicate, or nil for every item.
    public var filter: String?
    /// The property to sort by, or nil for the store's order.
    public var sortProperty: String?
    /// Whether the sort is ascending.
    public var ascending: Bool

    /// The longest predicate accepted.
    static let maxFilterLength = 1_000

    /// Reads and checks the query from a request's parameters (values already percent-decoded).
    ///
    /// - Throws: ``APIError`` `invalidQuery`: a predicate longer than 1,000 characters, or a sort
    ///   property that is not one of `title`, `done`, `priority`. The predicate itself is checked
    ///   when it runs (``results(in:)``).
    public init(filter: String?, sort: String?) throws {
        if let filter, filter.count > Self.maxFilterLength {
            throw APIError(.invalidQuery, "filter is longer than \(Self.maxFilterLength) characters")
        }
        self.filter = filter.flatMap { $0.isEmpty ? nil : $0 }
        ascending = true
        sortProperty = nil
        guard var sort, !sort.isEmpty else { return }
        if sort.hasPrefix("-") {
            ascending = false
            sort.removeFirst()
        }
        guard Todo.sortableProperties.contains(sort) else {
            throw APIError(.invalidQuery, "cannot sort by '\(sort)': use one of "
                           + Todo.sortableProperties.sorted().joined(separator: ", "))
        }
        sortProperty = sort
    }

    /// The live results of the query in `realm` (on the Realm's loop).
    ///
    /// - Throws: ``APIError`` `invalidQuery` with Strata's message when the predicate does not parse
    ///   or names no property of `Todo`.
    func results(in realm: Realm) throws -> Results<Todo> {
        var results = realm.objects(Todo.self)
        if let filter {
            do {
                results = try results.filter(validating: filter)
            } catch let error as Realm.Error {
                throw APIError(.invalidQuery, error.message)
            }
        }
        if let sortProperty { results = results.sorted(byKeyPath: sortProperty, ascending: ascending) }
        return results
    }
}
