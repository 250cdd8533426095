/// The algorithms of ``SortedTree/Node``: searching a node, inserting into and removing from a
/// uniquely referenced subtree, visiting entries, and checking the structure. Every access to a
/// node's contents goes through the accessors of `SortedTree+Node.swift`.
extension SortedTree.Node {
    /// The first index whose key is `>= key`.
    @inline(__always)
    func lowerBound(_ key: Key) -> Int { SortedTree.Node.lowerBound(key, in: keys) }

    /// The first index whose key is `> key`; in an internal node, the child that may hold `key`.
    @inline(__always)
    func upperBound(_ key: Key) -> Int { SortedTree.Node.upperBound(key, in: keys) }

    /// The first index of `keys` whose key is `>= key`.
    @inline(__always)
    static func lowerBound(_ key: Key, in keys: [Key]) -> Int {
        keys.withUnsafeBufferPointer { lowerBound(key, in: $0) }
    }

    /// The first index of `keys` whose key is `> key`.
    @inline(__always)
    static func upperBound(_ key: Key, in keys: [Key]) -> Int {
        keys.withUnsafeBufferPointer { upperBound(key, in: $0) }
    }

    /// The first index of `keys` whose key is `>= key`, by bisection (the insertions' and
    /// removals' search; lookups use ``searchLowerBound(_:in:)``).
    @inline(__always)
    static func lowerBound(_ key: Key, in keys: UnsafeBufferPointer<Key>) -> Int {
        partition(keys, near: nil) { !($0 < key) }
    }

    /// The first index of `keys` whose key is `> key`, by bisection.
    @inline(__always)
    static func upperBound(_ key: Key, in keys: UnsafeBufferPointer<Key>) -> Int {
        partition(keys, near: nil) { key < $0 }
    }

    /// The leaf holding `key` or where it would go: descends the branches from this node.
    func leaf(for key: Key) -> SortedTree.Node { withLeaf(for: key) { $0 } }

    /// Calls `body` with the leaf holding `key` or where it would go, found without retaining
    /// the nodes on the way (see ``unretainedChild(for:)``); `body` must not keep the leaf.
    @inline(__always)
    func withLeaf<R>(for key: Key, _ body: (SortedTree.Node) -> R) -> R {
        var node = Unmanaged.passUnretained(self)
        while !node._withUnsafeGuaranteedRef({ $0.isLeaf }) {
            node = node._withUnsafeGuaranteedRef { $0.unretainedChild(for: key) }
        }
        return node._withUnsafeGuaranteedRef(body)
    }

    /// The value stored for `key` in this subtree, or nil (one pin of the leaf).
    ///
    /// Integer keys descend carrying the separators that bound the subtree below (see
    /// ``SortedTree/Node/unretainedChild(for:bounds:)``): the leaf is then searched from where
    /// those bounds put the key, and its value's cache line is loaded while its key is checked,
    /// so a lookup in a tree larger than the CPU's caches waits for the leaf, then for its key
    /// and value together, rather than for the leaf's first and last keys, then the key, then
    /// the value, one after the other. In a tree too large for the CPU's caches, the branches'
    /// hints let the descent start loading a child's arrays with the child itself (see
    /// ``SortedTree/DescentHints``).
    /// `hintsFrom` is the smallest subtree whose lookups use hints (tests pass a smaller one).
    func value(for key: Key, hintsFrom: Int = SortedTree.DescentHints.minimumEntries) -> Value? {
        guard SortedTree.Node.hasIntegerKeys else { return withLeaf(for: key) { $0.leafValue(for: key) } }
        var node = Unmanaged.passUnretained(self)
        var bounds = SortedTree.SearchBounds()
        var hint: SortedTree.HintSlot?
        let hinting = count >= hintsFrom
        while !node._withUnsafeGuaranteedRef({ $0.isLeaf }) {
            node = node._withUnsafeGuaranteedRef {
                $0.unretainedChild(for: key, bounds: &bounds, hinting: hinting, hint: &hint)
            }
        }
        return node._withUnsafeGuaranteedRef { $0.leafValue(for: key, within: bounds, hint: hint) }
    }

    /// Whether this subtree holds `key`.
    func contains(_ key: Key) -> Bool { withLeaf(for: key) { $0.leafContains(key) } }

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
    func insert(_ key: Key, _ value: Value) -> (old: Value?, split: (separator: Key, right: SortedTree.Node)?) {
        extent = nil
        if isLeaf {
            let index = SortedTree.Node.lowerBound(key, in: ownKeys)
            if index < ownKeys.count && ownKeys[index] == key {
                let old = ownValues[index]
                ownValues[index] = value
                return (old, nil)
            }
            ownKeys.insert(key, at: index)
            ownValues.insert(value, at: index)
            count += 1
            return (nil, ownKeys.count > SortedTree.leafCapacity ? splitLeaf(insertedAt: index) : nil)
        }
        var slot = SortedTree.Node.upperBound(key, in: ownKeys)
        if !SortedTree.Node.isMutable(&ownChildren[slot]) { ownChildren[slot] = ownChildren[slot].clone() }
        if shiftIntoLeftSibling(ofChildAt: slot) { slot = SortedTree.Node.upperBound(key, in: ownKeys) }
        let (old, split) = ownChildren[slot].insert(key, value)
        if old == nil { count += 1 }
        guard let split else { return (old, nil) }
        ownKeys.insert(split.separator, at: slot)
        ownChildren.insert(split.right, at: slot + 1)
        return (old, ownChildren.count > SortedTree.branchCapacity ? splitBranch(newChildAt: slot + 1) : nil)
    }

    /// Before an insertion into the full leaf at `slot` of this uniquely referenced branch: when
    /// the leaf before it is this transaction's own (mutable) and has room, moves the full leaf's
    /// first entries to it, filling it, instead of letting the insertion split the full leaf in
    /// half (a B*-tree's redistribution). Returns whether entries moved (the separator then
    /// changed, so the insertion's slot must be found again).
    ///
    /// Keys inserted in ascending runs that interleave with older keys (names numbered 1, 2, …,
    /// 100000 in an index ordered by text) sweep through leaves that are already full: split in
    /// half, the left halves never receive another key and stay half full. Moving entries left
    /// instead keeps the leaves behind a sweep full: such an index of 100,000 names takes 409
    /// leaves instead of 729, and random insertions fill 75% of their leaves instead of 71%.
    /// Trees of rows keep their own end-of-leaf packing (see ``splitLeaf(insertedAt:)``) and are
    /// left alone.
    private func shiftIntoLeftSibling(ofChildAt slot: Int) -> Bool {
        guard SortedTree.redistributesLeaves, slot > 0 else { return false }
        let child = ownChildren[slot]
        guard child.isLeaf, child.count >= SortedTree.leafCapacity,
              SortedTree.Node.isMutable(&ownChildren[slot - 1]) else { return false }
        let left = ownChildren[slot - 1]
        let room = SortedTree.leafCapacity - left.count
        guard room > 0 else { return false }
        let moved = min(room, child.count - 1)
        left.extent = nil
        child.extent = nil
        left.ownKeys.append(contentsOf: child.ownKeys[..<moved])
        left.ownValues.append(contentsOf: child.ownValues[..<moved])
        child.ownKeys.removeFirst(moved)
        child.ownValues.removeFirst(moved)
        left.count += moved
        child.count -= moved
        ownKeys[slot - 1] = child.ownKeys[0]
        return true
    }

    /// Splits an overflowing leaf in half, or keeps it full if the insertion was at its end.
    ///
    /// A full leaf of rows left behind by an insertion at its end (objects created in key order,
    /// as a transaction creates them) gets its rows packed in one ``RowBlock``: the next
    /// insertions go to the new leaf, and packed rows take about half the memory of rows of their
    /// own (a transaction keeps its rows only there: its instructions are encoded as they are
    /// recorded, see ``InstructionSpool``).
    private func splitLeaf(insertedAt index: Int) -> (separator: Key, right: SortedTree.Node) {
        let total = ownKeys.count
        let atEnd = index == total - 1
        let mid = atEnd ? total - 1 : total / 2
        let capacity = SortedTree.leafCapacity + 1
        let right = SortedTree.Node(
            isLeaf: true, count: total - mid,
            keys: SortedTree.Node.array(ownKeys[mid...], capacity: capacity),
            values: SortedTree.Node.array(ownValues[mid...], capacity: capacity)
        )
        ownKeys.removeSubrange(mid...)
        ownValues.removeSubrange(mid...)
        count = mid
        if atEnd, Value.self == Row.self, let packed = SortedTree.Node.repackedRows(ownValues) { ownValues = packed }
        return (right.keys[0], right)
    }

    /// Splits an overflowing internal node in half, or keeps it full if the new child is last.
    private func splitBranch(newChildAt slot: Int) -> (separator: Key, right: SortedTree.Node) {
        let total = ownChildren.count
        let mid = slot == total - 1 ? total - 1 : total / 2
        let separator = ownKeys[mid - 1]
        let rightChildren = SortedTree.Node.array(ownChildren[mid...], capacity: SortedTree.branchCapacity + 1)
        let rightCount = rightChildren.reduce(0) { $0 + $1.count }
        let right = SortedTree.Node(
            isLeaf: false, count: rightCount,
            keys: SortedTree.Node.array(ownKeys[mid...], capacity: SortedTree.branchCapacity), children: rightChildren
        )
        ownChildren.removeSubrange(mid...)
        ownKeys.removeSubrange((mid - 1)...)
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
            let index = SortedTree.Node.lowerBound(key, in: ownKeys)
            guard index < ownKeys.count, ownKeys[index] == key else { return nil }
            extent = nil
            ownKeys.remove(at: index)
            count -= 1
            return ownValues.remove(at: index)
        }
        let slot = SortedTree.Node.upperBound(key, in: ownKeys)
        var present = knownPresent
        if !SortedTree.Node.isMutable(&ownChildren[slot]) {
            guard present || ownChildren[slot].contains(key) else { return nil }
            ownChildren[slot] = ownChildren[slot].clone()
            present = true
        }
        guard let old = ownChildren[slot].remove(key, knownPresent: present) else { return nil }
        extent = nil
        count -= 1
        if ownChildren[slot].count == 0 {
            ownChildren.remove(at: slot)
            if !ownKeys.isEmpty { ownKeys.remove(at: Swift.max(slot - 1, 0)) }
        }
        return old
    }

    /// A leaf's entries for a scan, or nil for a branch: read through a full cache without
    /// keeping them when the leaf is not in memory (see ``entriesReadThrough()``).
    private func scannedEntries() -> (keys: [Key], values: [Value])? {
        if let read = entriesReadThrough() { return read }
        return isLeaf ? entries : nil
    }

    func forEach(_ body: (Key, Value) throws -> Void) rethrows {
        guard let (keys, values) = scannedEntries() else {
            for child in children { try child.forEach(body) }
            return
        }
        for index in keys.indices { try body(keys[index], values[index]) }
    }

    func forEachLeaf(
        packingRows: Bool = false, _ body: (UnsafeBufferPointer<Key>, UnsafeBufferPointer<Value>) throws -> Void
    ) rethrows {
        if packingRows, Value.self == Row.self, isLeaf { packRows() }
        // Local references to the leaf's arrays (one retain per leaf): `body` may mutate a
        // tree that shares this node, and the buffers must outlive that.
        guard let (keys, values) = scannedEntries() else {
            for child in children { try child.forEachLeaf(packingRows: packingRows, body) }
            return
        }
        try keys.withUnsafeBufferPointer { keys in
            try values.withUnsafeBufferPointer { values in try body(keys, values) }
        }
    }

    /// Visits the leaves holding keys `>= bound` (all if nil), in order: `body` gets each leaf's
    /// keys and values from `bound` on (one read of the leaf, through a full cache without
    /// keeping it), and stops the walk by returning false; returns false if `body` stopped.
    func forEachLeaf(from bound: Key?, _ body: (ArraySlice<Key>, ArraySlice<Value>) throws -> Bool) rethrows -> Bool {
        if let (keys, values) = scannedEntries() {
            let first = bound.map { SortedTree.Node.lowerBound($0, in: keys) } ?? 0
            return try body(keys[first...], values[first...])
        }
        let children = self.children
        let start = bound.map { upperBound($0) } ?? 0
        for slot in start..<children.count {
            guard try children[slot].forEachLeaf(from: slot == start ? bound : nil, body) else { return false }
        }
        return true
    }

    /// Visits the entries with keys `>= bound` (all if nil); returns false if `body` stopped.
    func forEach(from bound: Key?, _ body: (Key, Value) throws -> Bool) rethrows -> Bool {
        try forEachLeaf(from: bound) { keys, values in
            for (key, value) in zip(keys, values) { guard try body(key, value) else { return false } }
            return true
        }
    }

    /// ``forEach(from:_:)`` over the keys alone: no value is copied out of its leaf, so a walk
    /// over keys retains nothing per entry.
    func forEachKey(from bound: Key?, _ body: (Key) throws -> Bool) rethrows -> Bool {
        try forEachLeaf(from: bound) { keys, _ in
            for key in keys { guard try body(key) else { return false } }
            return true
        }
    }

    func appendKeys(to result: inout [Key]) {
        guard let (keys, _) = scannedEntries() else {
            for child in children { child.appendKeys(to: &result) }
            return
        }
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
