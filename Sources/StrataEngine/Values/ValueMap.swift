/// A string-keyed dictionary of values kept in ascending key order, as Realm's `Map` iterates.
///
/// Keys are told apart and ordered by their UTF-8 bytes, as Realm Core compares strings (and as
/// ``Value/compare(_:)`` does), never by Swift's canonical-equivalence `String` comparison, which
/// would merge "Å" as one scalar with "Å" as two and is not a strict order on every input.
public struct ValueMap: Hashable, Sendable, Sequence {
    /// The keys, ascending.
    package private(set) var keys: [String]
    /// The values, in key order.
    package private(set) var values: [Value]

    /// Creates an empty map.
    package init() {
        keys = []
        values = []
    }

    /// Creates a map from key-value pairs; a later duplicate key wins.
    package init<S: Sequence>(_ pairs: S) where S.Element == (String, Value) {
        self.init()
        for (key, value) in pairs { self[key] = value }
    }

    /// The number of entries.
    package var count: Int { keys.count }

    /// Whether the map is empty.
    package var isEmpty: Bool { keys.isEmpty }

    /// The position of `key`, or where it would be inserted.
    ///
    /// - Complexity: O(log n).
    package func position(of key: String) -> (index: Int, found: Bool) {
        var low = 0, high = keys.count
        while low < high {
            let mid = (low + high) / 2
            if Value.compareUTF8(keys[mid], key) < 0 { low = mid + 1 } else { high = mid }
        }
        return (low, low < keys.count && Value.compareUTF8(keys[low], key) == 0)
    }

    /// Whether both hold the same keys (by UTF-8 bytes) with equal values.
    public static func == (lhs: ValueMap, rhs: ValueMap) -> Bool {
        lhs.keys.count == rhs.keys.count && lhs.values == rhs.values
            && zip(lhs.keys, rhs.keys).allSatisfy { Value.compareUTF8($0, $1) == 0 }
    }

    /// The value for `key`; setting nil removes the entry.
    ///
    /// - Complexity: O(log n) to read, O(n) to insert or remove.
    package subscript(key: String) -> Value? {
        get {
            let (index, found) = position(of: key)
            return found ? values[index] : nil
        }
        set {
            let (index, found) = position(of: key)
            switch (found, newValue) {
            case (true, let value?): values[index] = value
            case (true, nil):
                keys.remove(at: index)
                values.remove(at: index)
            case (false, let value?):
                keys.insert(key, at: index)
                values.insert(value, at: index)
            case (false, nil): break
            }
        }
    }

    /// The entries in key order.
    public func makeIterator() -> Zip2Sequence<[String], [Value]>.Iterator {
        zip(keys, values).makeIterator()
    }
}
