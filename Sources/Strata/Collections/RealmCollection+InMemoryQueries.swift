import Foundation
import StrataEngine
import StrataQuery

// Finding elements of an unmanaged collection (`List`, `MutableSet` of an object not yet added)
// in memory, as Realm Swift does for `index(of:)` and `index(matching:)` there.

extension RealmCollection {
    /// The index of the first element that is `object`: the same object (table and key) for
    /// Realm objects, managed or not (an unmanaged one is only itself), otherwise an equal value.
    ///
    /// - Complexity: O(n).
    func firstIndex(ofObjectOrValue object: Element) -> Int? {
        guard let target = object as? ObjectBase else { return firstIndex(of: object) }
        return firstIndex { ($0 as? ObjectBase)?.isSameObject(as: target) == true }
    }

    /// The index of the first value of an unmanaged collection of primitives that matches the
    /// predicate (`self > 5`), evaluated in memory.
    ///
    /// Traps, as ``filter(_:_:)`` does, for a malformed predicate, and for a collection of
    /// objects (add its owner to a Realm first, or search with `firstIndex(where:)`).
    ///
    /// - Complexity: O(n) evaluations.
    func inMemoryIndex(matching predicateFormat: String, arguments: [Any]) -> Int? {
        precondition(!(Element.self is ObjectBase.Type),
                     "index(matching:) on an unmanaged collection of objects is not supported: add its owner to a "
                     + "Realm first, or search with firstIndex(where:).")
        let query: ElementQuery
        do {
            let parsed = try RQLParser.parse(predicateFormat, arguments: arguments.map(QueryArguments.argument))
            query = try ElementQuery(parsed, snapshot: .empty)
        } catch {
            preconditionFailure("Invalid query \"\(predicateFormat)\" for an unmanaged collection of "
                                + "'\(Element.self)': \(error)")
        }
        return firstIndex { query.matches(QueryArguments.stored($0), in: .empty) }
    }
}
