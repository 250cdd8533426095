import Strata

/// A to-do item: what the example stores, lists, edits and streams.
public final class Todo: Object {
    @Persisted(primaryKey: true) public var id: ObjectId
    @Persisted public var title = ""
    @Persisted public var done = false
    @Persisted public var priority = 0

    /// The properties a list may be sorted by (`sort=priority`, `sort=-title`).
    static let sortableProperties: Set<String> = ["title", "done", "priority"]
}
