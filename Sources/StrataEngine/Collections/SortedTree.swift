import StrataStorage
import StrataSupport
import Synchronization

/// A persistent ordered map: a copy-on-write B+tree with structural sharing and
/// per-subtree element counts.
///
/// Copying a tree is O(1) and shares every node, so a copy is a snapshot that later
/// mutations never affect. A mutation copies only the shared nodes on the path from the
/// root to the leaf it touches (uniquely referenced nodes are mutated in place).
///
/// Leaves hold up to 64 entries (256 in index trees; see ``leafCapacity``) and internal nodes up
/// to 64 children. Every node records
/// the number of entries below it, which gives O(log n) `rank(of:)`, `index(of:)` and
/// `element(at:)`. An insertion at the end of a full leaf splits it unevenly (the old
/// leaf stays full), so ascending appends build full leaves.
///
/// Deletion does not merge or rebalance: nodes may be left underfull. A child that
/// becomes empty is removed from its parent, and a root left with a single child is
/// replaced by that child; the height stays logarithmic in the peak entry count.
///
/// - Complexity: O(1) to copy; lookups, updates, removals and positional access are
///   O(log n), and a mutation allocates at most one node copy per level.
package struct SortedTree<Key: Comparable & Sendable, Value: Sendable>: Sendable, Sequence {
    /// Maximum number of entries in a leaf: 64, or 256 in a table's index trees (primary key,
    /// secondary indexes, backlinks), whose entries take a few tens of bytes in a page where a
    /// row takes a few hundred, so that their leaves fill a page about as a leaf of rows does.
    static var leafCapacity: Int { isIndexTree ? 256 : 64 }

    private static var isIndexTree: Bool {
        ObjectIdentifier(Value.self) == ObjectIdentifier(ObjectKey.self)
            || ObjectIdentifier(Key.self) == ObjectIdentifier(IndexEntry.self)
            || ObjectIdentifier(Value.self) == ObjectIdentifier(BacklinkCounts.self)
    }
    /// Maximum number of children of an internal node.
    static var branchCapacity: Int { 64 }

    /// Whether an insertion into a full leaf first moves entries into the leaf before it (see
    /// ``Node/shiftIntoLeftSibling(ofChildAt:)``): every tree but one of rows, whose leaves are
    /// packed as they fill.
    static var redistributesLeaves: Bool { ObjectIdentifier(Value.self) != ObjectIdentifier(Row.self) }

    /// The root: a leaf (possibly empty) or an internal node with at least two children.
    var root: Node

    /// Creates an empty tree.
    /// - Complexity: O(1).
    package init() { root = Node(isLeaf: true) }

    /// The number of entries.
    /// - Complexity: O(1).
    package var count: Int { root.count }

    /// Whether the tree has no entries.
    /// - Complexity: O(1).
    package var isEmpty: Bool { root.count == 0 }

    /// The value stored for `key`, or nil if there is none.
    /// - Complexity: O(log n), no allocation.
    package subscript(key: Key) -> Value? {
        root.value(for: key)
    }

    /// The value stored for `key`, with the descent's prefetch hints used from a tree of
    /// `hintsFrom` entries (see ``DescentHints``): for tests, which cannot build trees of the
    /// default size under the sanitizers in their time.
    func value(for key: Key, hintsFrom: Int) -> Value? {
        root.value(for: key, hintsFrom: hintsFrom)
    }

    /// The values stored for `keys`, in their order (nil where there is none). Runs of keys
    /// that fall in one leaf (ascending keys from a scan, say) share one descent.
    /// - Complexity: O(k log n), O(k + log n) for k ascending keys of adjacent entries.
    package func values(for keys: [Key]) -> [Value?] {
        var found: [Value?] = []
        found.reserveCapacity(keys.count)
        var leaf: Node?
        for key in keys {
            if let current = leaf, let value = current.leafValueIfInRange(key) {
                found.append(value)
                continue
            }
            let next = root.leaf(for: key)
            found.append(next.leafValue(for: key))
            leaf = next
        }
        return found
    }

    /// Whether the tree has an entry for `key`.
    /// - Complexity: O(log n), no allocation.
    package func contains(_ key: Key) -> Bool { root.contains(key) }

    /// Stores `value` for `key`, inserting or replacing; returns the replaced value, if any.
    /// - Complexity: O(log n); copies the shared nodes on the path to the leaf.
    @discardableResult
    package mutating func updateValue(_ value: Value, forKey key: Key) -> Value? {
        if !Node.isMutable(&root) { root = root.clone() }
        let (old, split) = root.insert(key, value)
        if let split {
            let count = root.count + split.right.count
            root = Node(isLeaf: false, count: count, keys: [split.separator], children: [root, split.right])
        }
        return old
    }

    /// Removes the entry for `key` and returns its value, or returns nil if there is none.
    /// Children that become empty are dropped and a root with a single child is replaced by
    /// that child; underfull nodes are not merged.
    /// - Complexity: O(log n); copies nothing when the key is absent.
    @discardableResult
    package mutating func removeValue(forKey key: Key) -> Value? {
        var present = false
        if !Node.isMutable(&root) {
            guard root.contains(key) else { return nil }
            root = root.clone()
            present = true
        }
        guard let old = root.remove(key, knownPresent: present) else { return nil }
        if !root.isLeaf && root.children.isEmpty { root = Node(isLeaf: true) }
        while !root.isLeaf && root.children.count == 1 { root = root.children[0] }
        return old
    }

    /// Mutates the value stored for key in place (no copy of the value when the path is
    /// uniquely owned); returns nil and does nothing if absent.
    /// - Complexity: O(log n) plus the cost of `body`; copies nothing when the key is absent.
    @discardableResult
    package mutating func modifyValue<R>(forKey key: Key, _ body: (inout Value) throws -> R) rethrows -> R? {
        var verified = false
        if !Node.isMutable(&root) {
            guard root.contains(key) else { return nil }
            root = root.clone()
            verified = true
        }
        // Every node on the path is made this tree's own (a clean node, one the last checkpoint
        // wrote, is shared with the checkpoint's snapshot, so it is cloned), and clearing its
        // extent on the way down costs nothing, whether or not the key is found. The descent
        // retains nothing (a retain and a release per level were a fifth of a property set):
        // the tree holds the root, and each node below is held by its parent's children array.
        var node = Unmanaged.passUnretained(root)
        while !node._withUnsafeGuaranteedRef({ $0.isLeaf }) {
            guard let child = node._withUnsafeGuaranteedRef({ $0.ownChild(for: key, verified: &verified) }) else {
                return nil
            }
            node = child
        }
        return try node._withUnsafeGuaranteedRef { try $0.modifyOwnValue(forKey: key, body) }
    }

    /// The position of `key` in ascending key order, or nil if it is absent.
    /// - Complexity: O(log n).
    package func index(of key: Key) -> Int? {
        let (rank, found) = search(key)
        return found ? rank : nil
    }

    /// The number of keys strictly less than `key`, whether or not `key` is present.
    /// - Complexity: O(log n).
    package func rank(of key: Key) -> Int { search(key).rank }

    private func search(_ key: Key) -> (rank: Int, found: Bool) {
        var node = root
        var rank = 0
        while !node.isLeaf {
            let slot = node.upperBound(key)
            rank += node.count(before: slot)
            node = node.children[slot]
        }
        let keys = node.keys
        let index = Node.lowerBound(key, in: keys)
        return (rank + index, index < keys.count && keys[index] == key)
    }

    /// The entry at `index` in ascending key order. Precondition: `0 <= index < count`.
    /// - Complexity: O(log n).
    package func element(at index: Int) -> (key: Key, value: Value) {
        precondition(index >= 0 && index < count, "SortedTree.element(at:): index out of range")
        var node = root
        var remaining = index
        while !node.isLeaf {
            var slot = 0
            while remaining >= node.children[slot].count {
                remaining -= node.children[slot].count
                slot += 1
            }
            node = node.children[slot]
        }
        let (keys, values) = node.entries
        return (keys[remaining], values[remaining])
    }

    /// The keys at positions `position ..< position + count` in ascending order (fewer at the
    /// end of the tree): one descent to the first, then a walk along the leaves.
    /// - Complexity: O(log n + count).
    package func keys(from position: Int, count: Int) -> [Key] {
        guard position < self.count, count > 0 else { return [] }
        var found: [Key] = []
        found.reserveCapacity(Swift.min(count, self.count - position))
        _ = root.forEachKey(from: element(at: position).key) { key in
            found.append(key)
            return found.count < count
        }
        return found
    }

    /// Up to `count` keys after `key` (which need not be in the tree), in ascending order: the
    /// next batch of a walk that goes on where the previous one ended, with one descent.
    /// - Complexity: O(log n + count).
    package func keys(after key: Key, count: Int) -> [Key] {
        var found: [Key] = []
        found.reserveCapacity(Swift.min(count, self.count))
        guard count > 0 else { return found }
        _ = root.forEachKey(from: key) { next in
            if next == key { return true }
            found.append(next)
            return found.count < count
        }
        return found
    }

    /// The entry with the smallest key, or nil if the tree is empty.
    /// - Complexity: O(log n).
    package var first: (key: Key, value: Value)? { isEmpty ? nil : element(at: 0) }

    /// The entry with the largest key, or nil if the tree is empty.
    /// - Complexity: O(log n).
    package var last: (key: Key, value: Value)? {
        guard !isEmpty else { return nil }
        var node = root
        while !node.isLeaf { node = node.children[node.children.count - 1] }
        let (keys, values) = node.entries
        return (keys[keys.count - 1], values[values.count - 1])
    }

    /// Calls `body` with every entry in ascending key order.
    /// - Complexity: O(n), without iterator overhead.
    package func forEach(_ body: (Key, Value) throws -> Void) rethrows {
        try root.forEach(body)
    }

    /// Calls `body` with each leaf's keys and values, in ascending key order: one call per leaf,
    /// with the entries borrowed, so that a scan's per-entry work runs in the caller's concrete
    /// code without retaining anything.
    /// - Complexity: O(n).
    ///
    /// With `packingRows`, in a tree of rows, each leaf whose rows are not packed in one
    /// ``RowBlock`` (rows written since the last checkpoint) is packed before `body` reads it, so
    /// that this scan and the next test it a column at a time; only for a shared tree (one a
    /// snapshot published) or one the calling thread owns.
    package func forEachLeaf(
        packingRows: Bool = false, _ body: (UnsafeBufferPointer<Key>, UnsafeBufferPointer<Value>) throws -> Void
    ) rethrows {
        try root.forEachLeaf(packingRows: packingRows, body)
    }

    /// Calls `body` with the entries of each leaf whose keys are `>= lowerBound`, a leaf at a
    /// time in ascending order (the first leaf's entries below `lowerBound` left out), until
    /// `body` returns false. A leaf that a full cache reads through is read once.
    /// - Complexity: O(log n + k) for k visited entries.
    package func forEachLeaf(from lowerBound: Key, _ body: (ArraySlice<Key>, ArraySlice<Value>) throws -> Bool) rethrows {
        _ = try root.forEachLeaf(from: lowerBound, body)
    }

    /// Calls `body` with the entries whose keys are `>= lowerBound`, in ascending order,
    /// stopping as soon as `body` returns false.
    /// - Complexity: O(log n + k) for k visited entries.
    package func forEach(from lowerBound: Key, _ body: (Key, Value) throws -> Bool) rethrows {
        _ = try root.forEach(from: lowerBound, body)
    }

    /// All keys in ascending order.
    /// - Complexity: O(n).
    package var keys: [Key] {
        var result: [Key] = []
        result.reserveCapacity(count)
        root.appendKeys(to: &result)
        return result
    }

    /// The number of entries, so that `Array(tree)` allocates once.
    /// - Complexity: O(1).
    package var underestimatedCount: Int { count }

    /// Returns an iterator over the entries in ascending key order. It iterates the tree
    /// as it was when the iterator was made, whatever mutations follow.
    /// - Complexity: O(log n).
    package func makeIterator() -> Iterator { Iterator(root: root) }

    /// Iterates a tree's entries in ascending key order.
    package struct Iterator: IteratorProtocol {
        /// The internal nodes above the current leaf, each with the child being visited.
        private var path: [(node: Node, slot: Int)] = []
        private var leafKeys: [Key] = []
        private var leafValues: [Value] = []
        private var position = 0

        init(root: Node) { descend(from: root) }

        private mutating func descend(from start: Node) {
            var node = start
            while !node.isLeaf {
                path.append((node, 0))
                node = node.children[0]
            }
            (leafKeys, leafValues) = node.entries
            position = 0
        }

        /// Returns the next entry in ascending key order, or nil when there is none.
        /// - Complexity: O(1) amortized.
        package mutating func next() -> (key: Key, value: Value)? {
            while position == leafKeys.count {
                guard let top = path.last else { return nil }
                if top.slot + 1 < top.node.children.count {
                    path[path.count - 1].slot += 1
                    descend(from: top.node.children[top.slot + 1])
                } else {
                    path.removeLast()
                }
            }
            defer { position += 1 }
            return (leafKeys[position], leafValues[position])
        }
    }

    /// Checks the structure with preconditions: keys strictly ascending, every key within
    /// the separators above it, counts consistent, capacities respected, no empty node
    /// below the root, all leaves at the same depth. For tests.
    /// - Complexity: O(n).
    package func checkInvariants() {
        precondition(root.isLeaf || root.children.count >= 2, "SortedTree: internal root with one child")
        _ = root.check(lower: nil, upper: nil, isRoot: true)
    }
}
