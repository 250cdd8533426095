import Foundation
import Strata

/// One message of the live-query WebSocket, as JSON.
///
/// The first message is `{"type": "initial", "objects": [...]}`: the query's result. Each later
/// one is `{"type": "update", ...}`, one per change set the Realm delivered, in commit order:
/// - `deletions`: indices in the previous result of the items that left it (or moved);
/// - `insertions`: indices in the new result of the items that joined it (or moved), with
///   `inserted`, those items in the same order;
/// - `modifications`: indices in the previous result of the items that stayed in place and
///   changed, with `modificationsInNewResult`, their indices in the new result, and `modified`,
///   the items as they are now, in the same order.
///
/// A client applies an update by removing `deletions` (from the highest index down), inserting
/// `inserted` at `insertions` (from the lowest up), then replacing the items at
/// `modificationsInNewResult` with `modified`.
public struct LiveQueryMessage: Codable, Sendable, Equatable {
    /// The kind of message.
    public enum Kind: String, Codable, Sendable {
        case initial
        case update
    }

    public var type: Kind
    /// The whole result (`initial` only).
    public var objects: [TodoJSON]?
    public var deletions: [Int]?
    public var insertions: [Int]?
    public var modifications: [Int]?
    public var modificationsInNewResult: [Int]?
    public var inserted: [TodoJSON]?
    public var modified: [TodoJSON]?

    /// The `initial` message for `result` (on the Realm's loop).
    init(initial result: Results<Todo>) {
        type = .initial
        objects = result.map(TodoJSON.init)
    }

    /// The `update` message for a change set of `result` (on the Realm's loop).
    init(update result: Results<Todo>, deletions: [Int], insertions: [Int], modifications: [Int]) {
        type = .update
        self.deletions = deletions
        self.insertions = insertions
        self.modifications = modifications
        let newIndices = Self.newIndices(ofKept: modifications, deletions: deletions, insertions: insertions)
        modificationsInNewResult = newIndices
        inserted = insertions.map { TodoJSON(result[$0]) }
        modified = newIndices.map { TodoJSON(result[$0]) }
    }

    /// The indices in the new result of items at `kept` (ascending old indices of items neither
    /// deleted nor moved): each shifts down by the deletions before it, then up by the insertions
    /// at or before its new place.
    ///
    /// - Complexity: O(kept + deletions + insertions).
    static func newIndices(ofKept kept: [Int], deletions: [Int], insertions: [Int]) -> [Int] {
        var deletionsBefore = 0
        var insertionsUpTo = 0
        return kept.map { old in
            while deletionsBefore < deletions.count, deletions[deletionsBefore] < old { deletionsBefore += 1 }
            var new = old - deletionsBefore
            while insertionsUpTo < insertions.count, insertions[insertionsUpTo] <= new + insertionsUpTo {
                insertionsUpTo += 1
            }
            new += insertionsUpTo
            return new
        }
    }

    /// The message as one line of JSON, keys sorted.
    func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding plain strings, integers and booleans cannot fail.
        return String(decoding: (try? encoder.encode(self)) ?? Data(), as: UTF8.self)
    }
}
