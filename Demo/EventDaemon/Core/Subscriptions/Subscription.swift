import Foundation
import Strata

/// A live query a client subscribed to: its initial result, then every change set, as NDJSON
/// lines, in commit order, until it is cancelled.
///
/// Lines: `{"initial":{"count":n,"objects":[…]}}`, then
/// `{"update":{"deletions":[…],"insertions":[…],"modifications":[…],"inserted":[…],"modified":[…]}}`
/// where deletions and modifications are indices in the previous result, insertions in the new
/// one, and `inserted` / `modified` are the objects at those new indices, serialized through
/// `CustomEventRepresentable`. Lives on the daemon's loop thread.
final class Subscription {
    private var token: NotificationToken?

    /// Subscribes; `send` gets each line (without its newline).
    ///
    /// - Throws: ``IngestRejection`` `bad_query` naming the position when the RQL or the sort
    ///   key path is invalid.
    init(realm: Realm, query: String, sort: String?, ascending: Bool, keyPaths: [String]?,
         send: @escaping (String) -> Void) throws(IngestRejection) {
        var results: Results<StoredEvent>
        do {
            results = try realm.objects(StoredEvent.self).filter(validating: query)
            if let sort {
                results = try results.filter(validating: "TRUEPREDICATE SORT(\(sort) \(ascending ? "ASC" : "DESC"))")
            }
        } catch {
            throw .badQuery("\(error)")
        }
        token = results.observe(keyPaths: keyPaths) { change in
            switch change {
            case .initial(let results):
                send(#"{"initial":{"count":\#(results.count),"objects":[\#(Self.objects(results, at: 0..<results.count))]}}"#)
            case .update(let results, let deletions, let insertions, let modifications):
                let modifiedNow = Self.newIndices(of: modifications, deletions: deletions, insertions: insertions)
                send(#"{"update":{"deletions":\#(deletions),"insertions":\#(insertions),"modifications":\#(modifications),"#
                     + #""inserted":[\#(Self.objects(results, at: insertions))],"modified":[\#(Self.objects(results, at: modifiedNow))]}}"#)
            case .error(let error):
                send(#"{"error":\#(JSONValue.string("\(error)").text)}"#)
            }
        }
    }

    /// Stops the notifications.
    func cancel() {
        token?.invalidate()
        token = nil
    }

    deinit { token?.invalidate() }

    private static func objects(_ results: Results<StoredEvent>, at indices: some Sequence<Int>) -> String {
        indices.map { results[$0].customEventRepresentation() }.joined(separator: ",")
    }

    /// Where the rows modified (old indices) are in the new results.
    static func newIndices(of modifications: [Int], deletions: [Int], insertions: [Int]) -> [Int] {
        let deleted = Set(deletions)
        return modifications.compactMap { old -> Int? in
            guard !deleted.contains(old) else { return nil }
            var new = old - deletions.prefix { $0 < old }.count
            for insertion in insertions where insertion <= new { new += 1 }
            return new
        }
    }
}
