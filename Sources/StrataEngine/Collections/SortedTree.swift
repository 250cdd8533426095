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
        guard let hit = root.locate(key) else { return nil }
        return hit.leaf.values[hit.index]
    }

    /// Whether the tree has an entry for `key`.
    /// - Complexity: O(log n), no allocation.
    package func contains(_ key: Key) -> Bool { root.locate(key) != nil }

    /// Stores `value` for `key`, inserting or replacing; returns the replaced value, if any.
    /// - Complexity: O(log n); copies the shared nodes on the path to the leaf.
    @discardableResult
    package mutating func updateValue(_ value: Value, forKey key: Key) -> Value? {
        if !isKnownUniquelyReferenced(&root) { root = root.clone() }
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
        if !isKnownUniquelyReferenced(&root) {
            guard root.locate(key) != nil else { return nil }
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
        if !isKnownUniquelyReferenced(&root) {
            guard root.locate(key) != nil else { return nil }
            root = root.clone()
            verified = true
        }
        // Every node on the path is this tree's own (a clean node, one the last checkpoint
        // wrote, is shared with the checkpoint's snapshot, so it was cloned above): clearing its
        // extent on the way down costs nothing, whether or not the key is found.
        var node = root
        while !node.isLeaf {
            node.extent = nil
            let slot = node.upperBound(key)
            if !isKnownUniquelyReferenced(&node.children[slot]) {
                guard verified || node.children[slot].locate(key) != nil else { return nil }
                node.children[slot] = node.children[slot].clone()
                verified = true
            }
            node = node.children[slot]
        }
        let index = node.lowerBound(key)
        guard index < node.keys.count, node.keys[index] == key else { return nil }
        node.extent = nil
        return try body(&node.values[index])
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
        let index = node.lowerBound(key)
        return (rank + index, index < node.keys.count && node.keys[index] == key)
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
        return (node.keys[remaining], node.values[remaining])
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
        return (node.keys[node.keys.count - 1], node.values[node.values.count - 1])
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
    package func forEachLeaf(_ body: (UnsafeBufferPointer<Key>, UnsafeBufferPointer<Value>) throws -> Void) rethrows {
        try root.forEachLeaf(body)
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
            leafKeys = node.keys
            leafValues = node.values
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

/// Held while a stub's page is read and its contents filled in (see ``SortedTree/Node``): one
/// lock for every paged tree, so a stub's `source` can be cleared once it is read.
private let stubReadLock = LockedValueBox(())

extension SortedTree {
    /// A tree node. A leaf stores its entries in `keys` and `values`. An internal node
    /// stores `children` and `keys.count == children.count - 1` separators: child `i`
    /// holds keys in `keys[i - 1] ..< keys[i]` (unbounded at the ends). `count` is the
    /// number of entries in the subtree; it is 0 only for an empty root leaf.
    //
    // Safety: a node is mutated only through a reference that `isKnownUniquelyReferenced`
    // proved unique, inside a mutating method of the one `SortedTree` that owns it (which
    // has exclusive access to that tree). A node reachable from two trees or iterators is
    // never mutated again (it is cloned instead), so readers on any thread see immutable
    // nodes. For the same reason accesses never overlap, so the dynamic exclusivity checks
    // on the hot fields are disabled.
    //
    // A stub (a node of a paged tree whose page has not been read yet; see
    // `SortedTree+Pages.swift`) is the one exception: its contents are filled in place, once,
    // by the first access from any thread, under `stubReadLock`, and published with a release
    // store of `isResident` that every access checks with an acquire load first. Its
    // `count` and `extent` are known from its parent and set before anyone sees it.
    final class Node: @unchecked Sendable {
        @exclusivity(unchecked) private var storedIsLeaf: Bool
        @exclusivity(unchecked) private var storedKeys: [Key]
        @exclusivity(unchecked) private var storedValues: [Value]
        @exclusivity(unchecked) private var storedChildren: [Node]
        @exclusivity(unchecked) var count: Int
        /// Where the last checkpoint wrote this node's image, or nil when the node changed since
        /// (or was never written): the page file's record of it (see ``PageExtent``). Every
        /// in-place mutation clears it and a clone starts without one; only a checkpoint sets it,
        /// after its pages are durable, on nodes it reached through its own snapshot.
        @exclusivity(unchecked) var extent: PageExtent?
        /// Where a stub's contents come from: nil for a node built in memory, and cleared once the
        /// contents are read (so a replaced page file is closed once its nodes are all read).
        /// Read and written only under `stubReadLock`.
        @exclusivity(unchecked) private var source: (loader: PageLoader, extent: PageExtent)?
        /// Whether the contents are in memory: false only for a stub not read yet.
        private let isResident: Atomic<Bool>

        /// Whether the node is a leaf.
        var isLeaf: Bool {
            ensureResident()
            return storedIsLeaf
        }

        /// A leaf's keys, or an internal node's separators.
        var keys: [Key] {
            get { ensureResident(); return storedKeys }
            _modify { ensureResident(); yield &storedKeys }
        }

        /// A leaf's values (empty in an internal node).
        var values: [Value] {
            get { ensureResident(); return storedValues }
            _modify { ensureResident(); yield &storedValues }
        }

        /// An internal node's children (empty in a leaf).
        var children: [Node] {
            get { ensureResident(); return storedChildren }
            _modify { ensureResident(); yield &storedChildren }
        }

        init(isLeaf: Bool, count: Int = 0, keys: [Key] = [], values: [Value] = [], children: [Node] = []) {
            storedIsLeaf = isLeaf
            self.count = count
            storedKeys = keys
            storedValues = values
            storedChildren = children
            source = nil
            isResident = Atomic(true)
        }

        /// A stub for the node of `count` entries at `extent`, read through `loader` on first use.
        init(stubAt extent: PageExtent, count: Int, loader: PageLoader) {
            storedIsLeaf = true
            self.count = count
            storedKeys = []
            storedValues = []
            storedChildren = []
            self.extent = extent
            source = (loader, extent)
            isResident = Atomic(false)
        }

        /// Reads a stub's contents if they are not in memory yet.
        @inline(__always)
        func ensureResident() {
            if !isResident.load(ordering: .acquiring) { readContents() }
        }

        @inline(never)
        private func readContents() {
            stubReadLock.withLockedValue { _ in
                guard !isResident.load(ordering: .relaxed), let source else { return }
                let read: Node
                do {
                    read = try source.loader.read(source.extent, count)
                } catch {
                    // Reads cannot throw in Realm's API; a page that fails its checks is never
                    // used as data. Opening checked the header and the catalog.
                    fatalError("Strata: the store file is damaged and cannot be read further: \(error). Restore it "
                               + "from a copy; nothing was read from the damaged page.")
                }
                storedIsLeaf = read.storedIsLeaf
                storedKeys = read.storedKeys
                storedValues = read.storedValues
                storedChildren = read.storedChildren
                self.source = nil
                isResident.store(true, ordering: .releasing)
            }
        }

        /// A copy with its own arrays, sized for an overflow; the children stay shared.
        func clone() -> Node {
            let copy = Node(isLeaf: isLeaf, count: count, keys: keys, values: values, children: children)
            let capacity = (isLeaf ? SortedTree.leafCapacity : SortedTree.branchCapacity) + 1
            copy.keys.reserveCapacity(capacity)
            if isLeaf { copy.values.reserveCapacity(capacity) } else { copy.children.reserveCapacity(capacity) }
            return copy
        }

        /// The first index whose key is `>= key`.
        @inline(__always)
        func lowerBound(_ key: Key) -> Int { partition { !($0 < key) } }

        /// The first index whose key is `> key`; in an internal node, the child that may hold `key`.
        @inline(__always)
        func upperBound(_ key: Key) -> Int { partition { key < $0 } }

        /// The first index whose key satisfies `isAbove`, which must be false then true along `keys`.
        @inline(__always)
        private func partition(_ isAbove: (Key) -> Bool) -> Int {
            keys.withUnsafeBufferPointer { keys in
                var low = 0, high = keys.count
                while low < high {
                    let mid = (low &+ high) &>> 1
                    if isAbove(keys[mid]) { high = mid } else { low = mid &+ 1 }
                }
                return low
            }
        }

        /// The leaf and index holding `key`, or nil.
        func locate(_ key: Key) -> (leaf: Node, index: Int)? {
            var node = self
            while !node.isLeaf { node = node.children[node.upperBound(key)] }
            let index = node.lowerBound(key)
            guard index < node.keys.count, node.keys[index] == key else { return nil }
            return (node, index)
        }

        /// The number of entries in the children before `slot`, summing the shorter side.
        func count(before slot: Int) -> Int {
            var total = 0
            if slot <= children.count / 2 {
                for index in 0..<slot { total += children[index].count }
                return total
            }
            for index in slot..<children.count { total += children[index].count }
            return count - total
        }

        /// Inserts or replaces in the subtree of this uniquely referenced node. Returns the
        /// replaced value and, if this node overflowed, the separator and new right sibling.
        func insert(_ key: Key, _ value: Value) -> (old: Value?, split: (separator: Key, right: Node)?) {
            ensureResident()
            extent = nil
            if isLeaf {
                let index = lowerBound(key)
                if index < keys.count && keys[index] == key {
                    let old = values[index]
                    values[index] = value
                    return (old, nil)
                }
                keys.insert(key, at: index)
                values.insert(value, at: index)
                count += 1
                return (nil, keys.count > SortedTree.leafCapacity ? splitLeaf(insertedAt: index) : nil)
            }
            let slot = upperBound(key)
            if !isKnownUniquelyReferenced(&children[slot]) { children[slot] = children[slot].clone() }
            let (old, split) = children[slot].insert(key, value)
            if old == nil { count += 1 }
            guard let split else { return (old, nil) }
            keys.insert(split.separator, at: slot)
            children.insert(split.right, at: slot + 1)
            return (old, children.count > SortedTree.branchCapacity ? splitBranch(newChildAt: slot + 1) : nil)
        }

        /// Splits an overflowing leaf in half, or keeps it full if the insertion was at its end.
        private func splitLeaf(insertedAt index: Int) -> (separator: Key, right: Node) {
            let total = keys.count
            let mid = index == total - 1 ? total - 1 : total / 2
            let capacity = SortedTree.leafCapacity + 1
            let right = Node(
                isLeaf: true, count: total - mid,
                keys: Self.array(keys[mid...], capacity: capacity),
                values: Self.array(values[mid...], capacity: capacity)
            )
            keys.removeSubrange(mid...)
            values.removeSubrange(mid...)
            count = mid
            return (right.keys[0], right)
        }

        /// Splits an overflowing internal node in half, or keeps it full if the new child is last.
        private func splitBranch(newChildAt slot: Int) -> (separator: Key, right: Node) {
            let total = children.count
            let mid = slot == total - 1 ? total - 1 : total / 2
            let separator = keys[mid - 1]
            let rightChildren = Self.array(children[mid...], capacity: SortedTree.branchCapacity + 1)
            let rightCount = rightChildren.reduce(0) { $0 + $1.count }
            let right = Node(
                isLeaf: false, count: rightCount,
                keys: Self.array(keys[mid...], capacity: SortedTree.branchCapacity), children: rightChildren
            )
            children.removeSubrange(mid...)
            keys.removeSubrange((mid - 1)...)
            count -= rightCount
            return (separator, right)
        }

        private static func array<T>(_ slice: ArraySlice<T>, capacity: Int) -> [T] {
            var result: [T] = []
            result.reserveCapacity(capacity)
            result.append(contentsOf: slice)
            return result
        }

        /// Removes `key` from the subtree of this uniquely referenced node, dropping children
        /// that become empty. `knownPresent` skips the presence check before cloning a child.
        func remove(_ key: Key, knownPresent: Bool) -> Value? {
            if isLeaf {
                let index = lowerBound(key)
                guard index < keys.count, keys[index] == key else { return nil }
                extent = nil
                keys.remove(at: index)
                count -= 1
                return values.remove(at: index)
            }
            let slot = upperBound(key)
            var present = knownPresent
            if !isKnownUniquelyReferenced(&children[slot]) {
                guard present || children[slot].locate(key) != nil else { return nil }
                children[slot] = children[slot].clone()
                present = true
            }
            guard let old = children[slot].remove(key, knownPresent: present) else { return nil }
            extent = nil
            count -= 1
            if children[slot].count == 0 {
                children.remove(at: slot)
                if !keys.isEmpty { keys.remove(at: Swift.max(slot - 1, 0)) }
            }
            return old
        }

        func forEach(_ body: (Key, Value) throws -> Void) rethrows {
            guard isLeaf else { for child in children { try child.forEach(body) }; return }
            let keys = self.keys, values = self.values
            for index in keys.indices { try body(keys[index], values[index]) }
        }

        func forEachLeaf(_ body: (UnsafeBufferPointer<Key>, UnsafeBufferPointer<Value>) throws -> Void) rethrows {
            guard isLeaf else { for child in children { try child.forEachLeaf(body) }; return }
            // Local references to the leaf's arrays (one retain per leaf): `body` may mutate a
            // tree that shares this node, and the buffers must outlive that.
            let keys = self.keys, values = self.values
            try keys.withUnsafeBufferPointer { keys in
                try values.withUnsafeBufferPointer { values in try body(keys, values) }
            }
        }

        /// Visits the entries with keys `>= bound` (all if nil); returns false if `body` stopped.
        func forEach(from bound: Key?, _ body: (Key, Value) throws -> Bool) rethrows -> Bool {
            if isLeaf {
                let keys = self.keys, values = self.values
                for index in (bound.map { lowerBound($0) } ?? 0)..<keys.count {
                    guard try body(keys[index], values[index]) else { return false }
                }
                return true
            }
            let children = self.children
            let start = bound.map { upperBound($0) } ?? 0
            for slot in start..<children.count {
                guard try children[slot].forEach(from: slot == start ? bound : nil, body) else { return false }
            }
            return true
        }

        func appendKeys(to result: inout [Key]) {
            guard isLeaf else { for child in children { child.appendKeys(to: &result) }; return }
            result.append(contentsOf: keys)
        }

        /// Checks this subtree, whose keys must lie in `lower ..< upper`; returns its height.
        func check(lower: Key?, upper: Key?, isRoot: Bool) -> Int {
            for index in keys.indices.dropFirst() {
                precondition(keys[index - 1] < keys[index], "SortedTree: keys not strictly ascending")
            }
            if let lower, let first = keys.first { precondition(!(first < lower), "SortedTree: key below its range") }
            if let upper, let last = keys.last { precondition(last < upper, "SortedTree: key above its range") }
            precondition(isRoot || count > 0, "SortedTree: empty node below the root")
            if isLeaf {
                precondition(children.isEmpty && values.count == keys.count, "SortedTree: malformed leaf")
                precondition(count == keys.count, "SortedTree: leaf count mismatch")
                precondition(keys.count <= SortedTree.leafCapacity, "SortedTree: leaf over capacity")
                return 1
            }
            precondition(values.isEmpty && !children.isEmpty, "SortedTree: malformed internal node")
            precondition(keys.count == children.count - 1, "SortedTree: separator count mismatch")
            precondition(children.count <= SortedTree.branchCapacity, "SortedTree: internal node over capacity")
            var total = 0
            var height: Int?
            for (slot, child) in children.enumerated() {
                let childLower = slot == 0 ? lower : keys[slot - 1]
                let childUpper = slot == children.count - 1 ? upper : keys[slot]
                let childHeight = child.check(lower: childLower, upper: childUpper, isRoot: false)
                precondition(height == nil || height == childHeight, "SortedTree: leaves at different depths")
                height = childHeight
                total += child.count
            }
            precondition(total == count, "SortedTree: internal count mismatch")
            return (height ?? 0) + 1
        }
    }
}
