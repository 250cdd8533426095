import CStrataPrefetch
import StrataStorage
import StrataSupport
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The bits of a ``SortedTree/Node``'s `state`; the pin count is kept in the bits above them.
private enum NodeState {
    /// The contents are in memory.
    static let resident: UInt = 1
    /// The node has a page to be read back from and is never mutated in place.
    static let paged: UInt = 2
    /// `storedIsLeaf` is known (set once, with the first contents).
    static let kindKnown: UInt = 4
    /// The node's page was freed by a checkpoint: it must never be evicted again.
    static let keepResident: UInt = 8
    /// Held while the contents are read or evicted, or a checkpoint records the node's page: a
    /// per-node lock, taken by compare-and-swap and waited for by yielding.
    static let busy: UInt = 16
    /// A checkpoint replaced the node's page image or delta with another node's: the node no
    /// longer stands for what its page (and delta) hold in the file, and a node cloned from it
    /// is written whole rather than as a delta of it.
    static let superseded: UInt = 32
    /// One pin: an access copying a leaf's arrays.
    static let pin: UInt = 64
}

extension SortedTree {
    /// A tree node. A leaf stores its entries in `keys` and `values`. An internal node
    /// stores `children` and `keys.count == children.count - 1` separators: child `i`
    /// holds keys in `keys[i - 1] ..< keys[i]` (unbounded at the ends). `count` is the
    /// number of entries in the subtree; it is 0 only for an empty root leaf.
    //
    // Safety: a node is mutated only through a reference that `isKnownUniquelyReferenced`
    // proved unique, inside a mutating method of the one `SortedTree` that owns it (which
    // has exclusive access to that tree), and only while it is private (not paged, see below).
    // A node reachable from two trees or iterators is never mutated again (it is cloned
    // instead), so readers on any thread see immutable nodes. For the same reason accesses never
    // overlap, so the dynamic exclusivity checks on the hot fields are disabled.
    //
    // Paged nodes are the exception: their contents come and go while their meaning never
    // changes. A node is paged once it has a page in the store file it can be read back from:
    // a stub made from a parent read from a page (see `SortedTree+Pages.swift`), or a node a
    // checkpoint wrote. A paged node is never mutated in place (writers clone it). Its contents
    // are filled by the first access from any thread, holding the node's `busy` bit (a per-node
    // lock in `state`), and published by a release of the `resident` bit that accesses acquire.
    // A paged leaf's contents can be evicted again by its store's ``NodeCache``: every access to
    // a leaf's arrays pins the leaf (adds `pin` to `state`) while it copies them (and while it
    // reads the page, if it has to), and eviction takes the `busy` bit from a resident state only
    // by a compare-and-swap that expects no pin, so no access ever sees arrays being freed.
    // Branches stay resident once read (they are a few percent of a tree).
    // `count`, `extent` and (once known) `isLeaf` never change for a shared node.
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
        /// The changes a reader applies to the image at `extent`, for a leaf the last checkpoint
        /// wrote as a delta (see ``LeafDelta``); set and cleared with `extent`.
        @exclusivity(unchecked) private(set) var delta: LeafDeltaHandle?
        /// The ``PageFile/identity`` of the file `extent` is a page of (0 without one); set with
        /// `extent`.
        @exclusivity(unchecked) private(set) var fileIdentity: UInt64 = 0
        /// For a node changed since the last checkpoint, the paged node it stands in for (the
        /// node as the file holds it, at the same place in the tree), whose page a checkpoint may
        /// keep, writing only a delta; nil once a checkpoint wrote this node, and for new nodes.
        /// Read by checkpoints only (see ``BaseBox``).
        var base: Node? { baseBox?.node }
        /// The box of this node's lineage (see ``BaseBox``); nil once a checkpoint wrote this
        /// node, and for new nodes. Read and written while holding the `busy` bit, or by the
        /// node's owner before it is shared.
        @exclusivity(unchecked) private var baseBox: BaseBox?
        /// What reads this node's page: nil for a private node, and for a branch once it was read
        /// (so a replaced page file is closed once its branches are read and its leaves gone).
        /// Read and written only while holding the `busy` bit.
        @exclusivity(unchecked) private var loader: PageLoader?
        /// For a leaf a write transaction moved to its scratch file, its image there (see
        /// ``spill(to:)``); nil once a checkpoint wrote the leaf. Read and written only while
        /// holding the `busy` bit.
        @exclusivity(unchecked) private var spilled: SpilledLeaf?
        /// Where a branch's prefetch hints for lookups are (see ``SortedTree/DescentHints``): 0
        /// until the first lookup that uses hints passes through the branch, which makes them
        /// (published by a compare-and-swap, so that readers of a shared branch agree on one).
        /// Freed with the node.
        private let descentHintsAddress = Atomic<UInt>(0)
        /// The ``NodeState`` bits and the pin count.
        private let state: Atomic<UInt>
        /// Set by accesses, cleared by the cache's clock hand: whether the node was used since the
        /// hand last passed (``NodeUses/usedFlag``, or any count), and how many of those uses of
        /// the paged leaf found it in memory (the low bits): its cache hits (see ``takeUses()``).
        private let recentlyUsed = Atomic<UInt>(0)

        /// Whether the node is a leaf.
        var isLeaf: Bool {
            if state.load(ordering: .acquiring) & NodeState.kindKnown == 0 { readContents() }
            return storedIsLeaf
        }

        /// A leaf's keys, or an internal node's separators.
        var keys: [Key] { withContents { storedKeys } }

        /// A leaf's values (empty in an internal node).
        var values: [Value] { withContents { storedValues } }

        /// A leaf's keys and values, copied under one pin.
        var entries: (keys: [Key], values: [Value]) { withContents { (storedKeys, storedValues) } }

        /// An internal node's children (empty in a leaf).
        var children: [Node] { withContents { storedChildren } }

        /// The keys of a private node, for its owner's in-place mutations (see the safety note).
        var ownKeys: [Key] {
            _read { assertPrivate(); yield storedKeys }
            _modify { assertPrivate(); yield &storedKeys }
        }

        /// The values of a private node, for its owner's in-place mutations.
        var ownValues: [Value] {
            _read { assertPrivate(); yield storedValues }
            _modify { assertPrivate(); yield &storedValues }
        }

        /// The child of this internal node that may hold `key`, read in place (a descent copies
        /// neither the separators nor the children array).
        @inline(__always)
        func child(for key: Key) -> Node {
            withContents {
                storedChildren[storedKeys.withUnsafeBufferPointer { SortedTree.Node.searchUpperBound(key, in: $0) }]
            }
        }

        /// The child of this internal node that may hold `key`, not retained: a descent holds
        /// the node it starts from, and a shared branch's children never change (a private one's
        /// change only inside its owner's mutations, which no read overlaps), so the child lives
        /// as long as the descent needs it. Saves a retain and a release per level.
        @inline(__always)
        func unretainedChild(for key: Key) -> Unmanaged<Node> {
            withContents {
                let index = storedKeys.withUnsafeBufferPointer { SortedTree.Node.searchUpperBound(key, in: $0) }
                return storedChildren.withUnsafeBufferPointer { Unmanaged.passUnretained($0[index]) }
            }
        }

        /// The child of this internal node that may hold `key`, not retained (see
        /// ``unretainedChild(for:)``), narrowing `bounds` to the separators on either side of it.
        /// The child's node is prefetched, and what its search reads first when this branch has
        /// hints for it (see ``SortedTree/DescentHints``) and `hinting` is true. `hint` is where
        /// this node's parent keeps hints for this node: this node's arrays are recorded there,
        /// and it becomes this node's slot for the child (nil when not `hinting`).
        @inline(__always)
        func unretainedChild(for key: Key, bounds: inout SortedTree.SearchBounds,
                             hinting: Bool, hint: inout SortedTree.HintSlot?) -> Unmanaged<Node> {
            withContents {
                if let hint {
                    hint.record(keys: Self.storageAddress(of: storedKeys), count: storedKeys.count,
                                second: Self.storageAddress(of: storedChildren), of: Node.self,
                                childHints: descentHintsAddress.load(ordering: .relaxed))
                }
                let index = storedKeys.withUnsafeBufferPointer { keys in
                    let index = SortedTree.Node.searchUpperBound(key, in: keys)
                    if index > 0 { bounds.lower = keys[index - 1] }
                    if index < keys.count { bounds.upper = keys[index] }
                    return index
                }
                let child = storedChildren.withUnsafeBufferPointer { Unmanaged.passUnretained($0[index]) }
                let address = UnsafeRawPointer(child.toOpaque())
                strata_prefetch(address)
                strata_prefetch(address + 64)
                if hinting {
                    let hints = descentHintsForLookups()
                    hints.prefetchChild(at: index, for: key, within: bounds)
                    hint = SortedTree.HintSlot(hints: hints, slot: index)
                }
                return child
            }
        }

        /// In this leaf, whose keys lie within `bounds`, the value stored for `key`, or nil,
        /// searched in place under one pin from where the bounds put it, with the value at that
        /// position prefetched (see ``value(for:)``). The leaf's arrays are recorded in `hint`,
        /// its parent's slot for it.
        @inline(__always)
        func leafValue(for key: Key, within bounds: SortedTree.SearchBounds, hint: SortedTree.HintSlot?) -> Value? {
            withContents {
                // The leaf's own count: its keys' header may not have arrived yet.
                if let hint {
                    hint.record(keys: Self.storageAddress(of: storedKeys), count: count,
                                second: Self.storageAddress(of: storedValues), of: Value.self)
                }
                // A leaf's `count` is its number of keys: the start is known before the keys'
                // storage is touched, and its key and value are loaded together.
                let guess = SortedTree.Node.interpolatedPosition(of: key, count: count, within: bounds)
                if let guess {
                    Self.prefetch(storedKeys, at: guess)
                    Self.prefetch(storedValues, at: guess)
                }
                return storedKeys.withUnsafeBufferPointer { keys in
                    let start = guess.map { Swift.min($0, keys.count - 1) } ?? SortedTree.Node.interpolatedPosition(of: key, in: keys)
                    let index = SortedTree.Node.partition(keys, near: start) { !($0 < key) }
                    guard index < keys.count && keys[index] == key else { return nil }
                    // A leaf holds as many values as keys. Read through a buffer, the value's load
                    // does not wait for the values' header (their count, for a bounds check),
                    // a line of its own that no hint loads.
                    return storedValues.withUnsafeBufferPointer { $0[index] }
                }
            }
        }

        /// The address of `array`'s storage, for hints: read as a plain word, so that recording
        /// a hint neither retains the array nor touches its header (a line of its own that the
        /// descent may not otherwise need; a retain waits for it, and its atomic instruction
        /// holds back the loads after it).
        @inline(__always)
        private static func storageAddress<Element>(of array: [Element]) -> UInt {
            unsafeBitCast(array, to: UInt.self)
        }

        /// Starts loading the cache line of `array`'s element at `index` without reading the
        /// array's header (an `Array` is one reference to storage whose elements follow a 32-byte
        /// header); the address is only a hint, so an index past the end does no harm.
        @inline(__always)
        private static func prefetch<Element>(_ array: [Element], at index: Int) {
            let storage = unsafeBitCast(array, to: UnsafeRawPointer.self)
            strata_prefetch(storage + 32 + index &* MemoryLayout<Element>.stride)
        }

        /// In this leaf, the value stored for `key`, or nil, searched in place under one pin.
        @inline(__always)
        func leafValue(for key: Key) -> Value? {
            withContents {
                let index = storedKeys.withUnsafeBufferPointer { SortedTree.Node.searchLowerBound(key, in: $0) }
                return index < storedKeys.count && storedKeys[index] == key ? storedValues[index] : nil
            }
        }

        /// In this leaf, `.some(value for key)` when `key` lies between its first and last keys
        /// (so no other leaf can hold it), nil when it lies outside them.
        @inline(__always)
        func leafValueIfInRange(_ key: Key) -> Value?? {
            withContents {
                guard let first = storedKeys.first, let last = storedKeys.last, !(key < first), !(last < key) else {
                    return nil
                }
                let index = storedKeys.withUnsafeBufferPointer { SortedTree.Node.searchLowerBound(key, in: $0) }
                return .some(storedKeys[index] == key ? storedValues[index] : nil)
            }
        }

        /// In this leaf, whether `key` is stored, searched in place under one pin.
        @inline(__always)
        func leafContains(_ key: Key) -> Bool {
            withContents {
                storedKeys.withUnsafeBufferPointer { keys in
                    let index = SortedTree.Node.searchLowerBound(key, in: keys)
                    return index < keys.count && keys[index] == key
                }
            }
        }

        /// In this private internal node, the child that may hold `key`, made the tree's own
        /// first (a shared child is replaced by its clone, unless it does not hold `key` and
        /// `verified` is false: nil then; a clone sets `verified`, the key being known present
        /// below it). Not retained: this node's children array holds the child, and only the
        /// owner's mutation in progress changes the array. Clears this node's extent.
        @inline(__always)
        func ownChild(for key: Key, verified: inout Bool) -> Unmanaged<Node>? {
            assertPrivate()
            extent = nil
            let slot = storedKeys.withUnsafeBufferPointer { SortedTree.Node.searchUpperBound(key, in: $0) }
            if !Node.isMutable(&storedChildren[slot]) {
                guard verified || storedChildren[slot].contains(key) else { return nil }
                storedChildren[slot] = storedChildren[slot].clone()
                verified = true
            }
            return storedChildren.withUnsafeBufferPointer { Unmanaged.passUnretained($0[slot]) }
        }

        /// In this private leaf, calls `body` with the value stored for `key`, in place, and
        /// returns what it returns; nil when `key` is absent. Clears the extent when found.
        @inline(__always)
        func modifyOwnValue<R>(forKey key: Key, _ body: (inout Value) throws -> R) rethrows -> R? {
            assertPrivate()
            let index = storedKeys.withUnsafeBufferPointer { SortedTree.Node.searchLowerBound(key, in: $0) }
            guard index < storedKeys.count, storedKeys[index] == key else { return nil }
            extent = nil
            return try body(&storedValues[index])
        }

        /// The children of a private node, for its owner's in-place mutations.
        var ownChildren: [Node] {
            _read { assertPrivate(); yield storedChildren }
            _modify { assertPrivate(); yield &storedChildren }
        }

        /// Whether the node may be mutated in place by the tree holding `node`: it is private and
        /// that tree's reference is the only one.
        static func isMutable(_ node: inout Node) -> Bool {
            isKnownUniquelyReferenced(&node) && node.state.load(ordering: .acquiring) & NodeState.paged == 0
        }

        init(isLeaf: Bool, count: Int = 0, keys: [Key] = [], values: [Value] = [], children: [Node] = []) {
            storedIsLeaf = isLeaf
            self.count = count
            storedKeys = keys
            storedValues = values
            storedChildren = children
            state = Atomic(NodeState.resident | NodeState.kindKnown)
        }

        deinit {
            let hints = descentHintsAddress.load(ordering: .acquiring)
            if hints != 0 { DescentHints(address: hints).deallocate() }
        }

        /// This branch's prefetch hints, made by the first lookup that asks.
        @inline(__always)
        func descentHintsForLookups() -> DescentHints {
            let address = descentHintsAddress.load(ordering: .acquiring)
            return address != 0 ? DescentHints(address: address) : makeDescentHints()
        }

        /// This branch's hints, if a lookup made them.
        var descentHints: DescentHints? {
            let address = descentHintsAddress.load(ordering: .acquiring)
            return address != 0 ? DescentHints(address: address) : nil
        }

        @inline(never)
        private func makeDescentHints() -> DescentHints {
            let made = DescentHints.allocate()
            let (exchanged, existing) = descentHintsAddress.compareExchange(
                expected: 0, desired: made.address, ordering: .acquiringAndReleasing)
            if exchanged { return made }
            // Another reader made them first.
            made.deallocate()
            return DescentHints(address: existing)
        }

        /// A stub for the node of `count` entries at `extent`, read through `loader` on first use.
        init(stubAt extent: PageExtent, count: Int, loader: PageLoader) {
            storedIsLeaf = true
            self.count = count
            storedKeys = []
            storedValues = []
            storedChildren = []
            self.extent = extent
            delta = loader.delta(ofLeafAt: extent.first)
            fileIdentity = loader.file.identity
            self.loader = loader
            state = Atomic(NodeState.paged)
        }

        /// A copy with its own arrays, sized for an overflow; the children stay shared.
        func clone() -> Node {
            let leaf = isLeaf
            let (keys, values) = entries
            let copy = Node(isLeaf: leaf, count: count, keys: keys, values: values, children: leaf ? [] : children)
            let (box, fromPage) = baseBoxForClone()
            copy.baseBox = box
            if leaf, fromPage { noteCopiedOutOfPage() }
            let capacity = (leaf ? SortedTree.leafCapacity : SortedTree.branchCapacity) + 1
            copy.storedKeys.reserveCapacity(capacity)
            if leaf {
                copy.storedValues.reserveCapacity(capacity)
            } else {
                copy.storedChildren.reserveCapacity(capacity)
            }
            return copy
        }

        /// Counts this paged leaf's first copy since its page was written with its store's cache
        /// (see ``NodeCache/noteDirtied(bytes:)``), which bounds the changes not checkpointed.
        private func noteCopiedOutOfPage() {
            lockNode()
            let (loader, extent) = (self.loader, self.extent)
            unlockNode()
            guard let loader, let extent, let cache = loader.cache else { return }
            let imageBytes = Int(extent.count) * loader.file.payloadCapacity
            cache.noteDirtied(bytes: loader.estimatedResidentBytes(imageBytes: imageBytes, entries: count))
        }

        /// The base box of a clone of this shared node, and whether it is new: a new box holding
        /// the node once paged, else its own box, shared (read under the `busy` bit: a checkpoint
        /// recording this node clears it meanwhile).
        private func baseBoxForClone() -> (box: BaseBox?, fromPage: Bool) {
            if isPaged { return (BaseBox(self), true) }
            lockNode()
            defer { unlockNode() }
            return state.load(ordering: .relaxed) & NodeState.paged != 0 ? (BaseBox(self), true) : (baseBox, false)
        }

        /// Whether the node has a page to be read back from (and is never mutated in place).
        var isPaged: Bool { state.load(ordering: .acquiring) & NodeState.paged != 0 }

        /// Whether a checkpoint replaced this paged node's image or delta (see ``NodeState``).
        var isSuperseded: Bool { state.load(ordering: .acquiring) & NodeState.superseded != 0 }

        /// Records that a checkpoint replaced this paged node's image or delta.
        func markSuperseded() { state.bitwiseOr(NodeState.superseded, ordering: .releasing) }

        @inline(__always)
        private func assertPrivate() {
            assert(state.load(ordering: .relaxed) & NodeState.paged == 0, "SortedTree: a paged node mutated in place")
        }

        /// Runs `body`, which copies out of the stored arrays, with the contents resident: a
        /// resident branch directly, a leaf under a pin (see the safety note).
        @inline(__always)
        private func withContents<R>(_ body: () -> R) -> R {
            let known = NodeState.resident | NodeState.kindKnown
            if state.load(ordering: .acquiring) & known == known && !storedIsLeaf { return body() }
            return withPinnedContents(body)
        }

        private func withPinnedContents<R>(_ body: () -> R) -> R {
            let before = state.wrappingAdd(NodeState.pin, ordering: .acquiringAndReleasing).oldValue
            defer { state.wrappingSubtract(NodeState.pin, ordering: .releasing) }
            // The pin is held while the page is read, so the cache cannot evict the contents
            // between their arrival and `body`.
            if before & NodeState.resident == 0 {
                readContents()
                if recentlyUsed.load(ordering: .relaxed) == 0 { recentlyUsed.store(NodeUses.usedFlag, ordering: .relaxed) }
            } else if before & NodeState.paged != 0 {
                recentlyUsed.wrappingAdd(1, ordering: .relaxed)  // a cache hit
            } else if recentlyUsed.load(ordering: .relaxed) == 0 {
                recentlyUsed.store(NodeUses.usedFlag, ordering: .relaxed)
            }
            return body()
        }

        /// Takes the node's `busy` bit, waiting while another thread holds it.
        private func lockNode() {
            while true {
                let current = state.load(ordering: .relaxed)
                if current & NodeState.busy == 0 {
                    if state.compareExchange(expected: current, desired: current | NodeState.busy,
                                             ordering: .acquiring).exchanged { return }
                } else {
                    sched_yield()
                }
            }
        }

        /// Sets `bits` and gives the `busy` bit back, publishing what was written while holding it.
        private func unlockNode(setting bits: UInt = 0) {
            if bits != 0 { state.bitwiseOr(bits, ordering: .releasing) }
            state.bitwiseAnd(~NodeState.busy, ordering: .releasing)
        }

        @inline(never)
        private func readContents() {
            lockNode()
            guard state.load(ordering: .relaxed) & NodeState.resident == 0 else {
                unlockNode()
                return
            }
            if let loader, let extent {
                let read = readPage(loader, extent)
                installAndUnlock(read.node, bytes: read.bytes, cache: loader.cache)
            } else if let spilled {
                installAndUnlock(readSpilled(spilled), bytes: spilled.residentBytes, cache: spilled.pages.cache)
            } else {
                unlockNode()
            }
        }

        /// Reads the leaf back from its image in a transaction's scratch file. A failed read stops
        /// the process, as a damaged page does (see ``readPage(_:_:)``).
        private func readSpilled(_ spilled: SpilledLeaf) -> Node {
            do {
                let (keys, values) = try spilled.read()
                guard keys.count == count else {
                    throw StrataError(.corruptFile, "a leaf read back from \(spilled.pages.file.path) holds "
                                      + "\(keys.count) entries where its tree says \(count)", path: spilled.pages.file.path)
                }
                return Node(isLeaf: true, count: count, keys: keys, values: values)
            } catch {
                fatalError("Strata: a leaf a write transaction moved to its scratch file cannot be read back: \(error). "
                           + "The commit log holds every committed change; reopen the store.")
            }
        }

        /// Whether the leaf's contents were moved to a write transaction's scratch file and no
        /// checkpoint has written it since (see ``spill(to:)``).
        var isSpilled: Bool {
            lockNode()
            defer { unlockNode() }
            return spilled != nil
        }

        /// Moves this private, resident leaf's contents to `image`, their copy in a write
        /// transaction's scratch file: the leaf becomes paged (never mutated in place again; a
        /// change clones it) and not resident, and is read back, into its store's cache, when
        /// next used.
        func spill(to image: SpilledLeaf) {
            assertPrivate()
            lockNode()
            precondition(storedIsLeaf && state.load(ordering: .relaxed) & NodeState.resident != 0,
                         "SortedTree: only a resident leaf is spilled")
            storedKeys = []
            storedValues = []
            spilled = image
            state.bitwiseAnd(~NodeState.resident, ordering: .relaxed)
            unlockNode(setting: NodeState.paged)
        }

        /// A scan's read of this node when its store's cache is full and the node is a paged leaf
        /// not in memory: the leaf's entries read from its page without keeping them, so that a
        /// scan larger than the cache does not evict what others use (nor what the scan itself
        /// brought in first). Returns nil when the node should be read as usual: it is resident,
        /// private, a branch (which is then kept, as always), or the cache has room.
        func entriesReadThrough() -> (keys: [Key], values: [Value])? {
            let current = state.load(ordering: .acquiring)
            guard current & (NodeState.resident | NodeState.paged) == NodeState.paged,
                  current & NodeState.kindKnown == 0 || storedIsLeaf else { return nil }
            lockNode()
            let (loader, extent) = (self.loader, self.extent)
            let resident = state.load(ordering: .relaxed) & NodeState.resident != 0
            unlockNode()
            guard !resident, let loader, let extent, let cache = loader.cache, cache.isFull else { return nil }
            let read = readPage(loader, extent).node
            guard read.storedIsLeaf else {
                lockNode()
                if state.load(ordering: .relaxed) & NodeState.resident == 0 {
                    installAndUnlock(read, bytes: 0, cache: cache)
                } else {
                    unlockNode()
                }
                return nil
            }
            if current & NodeState.kindKnown == 0 {
                lockNode()
                if state.load(ordering: .relaxed) & NodeState.kindKnown == 0 { storedIsLeaf = true }
                unlockNode(setting: NodeState.kindKnown)
            }
            return (read.storedKeys, read.storedValues)
        }

        /// Fills this non-resident node, whose `busy` bit the caller holds, with `read`'s
        /// contents, gives the bit back, and admits a leaf to `cache`.
        private func installAndUnlock(_ read: Node, bytes: Int, cache: NodeCache?) {
            // `storedIsLeaf` is read without a pin once known: a leaf read again leaves it alone.
            if state.load(ordering: .relaxed) & NodeState.kindKnown == 0 { storedIsLeaf = read.storedIsLeaf }
            storedKeys = read.storedKeys
            storedValues = read.storedValues
            if !storedIsLeaf { storedChildren = read.storedChildren }
            guard storedIsLeaf else {
                self.loader = nil
                unlockNode(setting: NodeState.resident | NodeState.kindKnown)
                return
            }
            recentlyUsed.bitwiseOr(NodeUses.usedFlag, ordering: .relaxed)
            unlockNode(setting: NodeState.resident | NodeState.kindKnown)
            if state.load(ordering: .relaxed) & NodeState.keepResident == 0 { cache?.admit(self, bytes: bytes) }
        }

        /// Reads and checks the node's page. A damaged page stops the process (see below).
        private func readPage(_ loader: PageLoader, _ extent: PageExtent) -> (node: Node, bytes: Int) {
            do {
                return try loader.read(extent, delta: delta, count)
            } catch {
                // Reads cannot throw in Realm's API; a page that fails its checks is never
                // used as data. Opening checked the header and the catalog.
                fatalError("Strata: the store file is damaged and cannot be read further: \(error). Restore it "
                           + "from a copy, or copy out what is readable with Realm.salvage(configuration:to:) "
                           + "(Realm.verify(configuration:) lists every damaged page); nothing was read from the "
                           + "damaged page.")
            }
        }

        /// Records that a checkpoint wrote this node at `extent` (with `delta` applied), readable
        /// through `loader`: from now on the node is paged, and a leaf can be evicted by `loader`'s
        /// cache. `imageBytes` is the size of its image. Called once the checkpoint is durable.
        func recordWritten(at extent: PageExtent, delta: LeafDeltaHandle?, imageBytes: Int, loader: PageLoader) {
            lockNode()
            let wasPaged = state.load(ordering: .relaxed) & NodeState.paged != 0
            self.extent = extent
            self.delta = delta
            fileIdentity = loader.file.identity
            // The lineage's later versions (changed while this checkpoint ran) now stand in for
            // this node's page, not the one it replaced.
            baseBox?.node = self
            baseBox = nil
            spilled = nil
            let admits = storedIsLeaf && state.load(ordering: .relaxed) & NodeState.keepResident == 0
            if admits { self.loader = loader }
            unlockNode(setting: NodeState.paged)
            // A leaf paged before was admitted when it was read (or written) then.
            if admits && !wasPaged {
                loader.cache?.admit(self, bytes: loader.estimatedResidentBytes(imageBytes: imageBytes, entries: count))
            }
        }

        /// Replaces the values of this resident leaf (paged, unless `requiringPaged` is false) by
        /// what `transform` makes of them (the same entries in another form), when no access holds
        /// the leaf; does nothing when `transform` returns nil, the leaf is not resident, or an
        /// access or the cache holds it. As eviction does, it takes the `busy` bit from a resident
        /// state without pins, clearing `resident` meanwhile: an access arriving then waits for the
        /// bit (a paged leaf's read takes it; an unpaged leaf's access finds no page to read once
        /// it has the bit), and finds the new values. An unpaged leaf may be replaced only while
        /// it is shared (published, never mutated in place again) or by the thread that owns it.
        func replaceResidentValues(requiringPaged: Bool = true, _ transform: ([Value]) -> [Value]?) {
            let known = NodeState.resident | NodeState.kindKnown | (requiringPaged ? NodeState.paged : 0)
            let before = state.load(ordering: .acquiring)
            guard before & known == known, before & NodeState.busy == 0, storedIsLeaf,
                  let replacement = transform(values), replacement.count == count else { return }
            let current = state.load(ordering: .relaxed)
            guard current & known == known, current & (NodeState.busy | ~(NodeState.pin - 1)) == 0,
                  state.compareExchange(expected: current, desired: (current & ~NodeState.resident) | NodeState.busy,
                                        ordering: .acquiringAndReleasing).exchanged else { return }
            storedValues = replacement
            unlockNode(setting: NodeState.resident)
        }

        /// Makes this leaf of rows hold them packed in one ``RowBlock``, as a checkpoint or a read of
        /// its page leaves them, unless they are already (every row in one block, in order) or an
        /// access holds the leaf (see ``replaceResidentValues(requiringPaged:_:)``).
        func packRows() {
            // A leaf not in memory is packed by its read (and a scan through a full cache reads
            // it without keeping it).
            let resident = NodeState.resident | NodeState.kindKnown
            guard state.load(ordering: .acquiring) & resident == resident else { return }
            // Every row, not only the first and last: a leaf packed as a transaction filled it (or
            // by a checkpoint) and then changed in the middle is packed again.
            guard !holdsPackedRows else { return }
            replaceResidentValues(requiringPaged: false, Self.repackedRows)
        }

        /// Whether this leaf of rows holds every row packed, in order, in one ``RowBlock`` (an
        /// empty leaf does).
        var holdsPackedRows: Bool {
            withContents {
                guard Value.self == Row.self else { return false }
                guard let first = storedValues.first as? Row else { return true }
                guard let block = first.block, block.count == storedValues.count else { return false }
                return unsafeBitCast(storedValues, to: [Row].self).withUnsafeBufferPointer { rows in
                    for position in rows.indices where rows[position].block !== block || rows[position].position != position {
                        return false
                    }
                    return true
                }
            }
        }

        /// A leaf's rows packed in one block (``Row/repacked(_:)``), for a tree of rows. The
        /// arrays are reinterpreted, not cast: `[Value]` is `[Row]` here, and `as!` between
        /// array types converts element by element through the runtime's dynamic casts.
        static func repackedRows(_ values: [Value]) -> [Value]? {
            precondition(Value.self == Row.self, "SortedTree: rows packed in a tree of other values")
            return Row.repacked(unsafeBitCast(values, to: [Row].self)).map { unsafeBitCast($0, to: [Value].self) }
        }

        /// Reads the contents if they are not in memory and keeps them in memory for good: a
        /// checkpoint freed the node's page, which a later checkpoint may reuse.
        func keepResident() {
            state.bitwiseOr(NodeState.keepResident, ordering: .relaxed)
            if state.load(ordering: .acquiring) & NodeState.resident == 0 { readContents() }
        }

        /// Whether the cache may evict this node (a resident paged leaf whose page is in use).
        var isEvictable: Bool {
            state.load(ordering: .relaxed) & (NodeState.keepResident | NodeState.resident | NodeState.paged)
                == NodeState.resident | NodeState.paged
        }

        /// Clears and returns the node's uses since the last call (see ``NodeUses``).
        func takeUses() -> NodeUses { NodeUses(raw: recentlyUsed.exchange(0, ordering: .relaxed)) }

        /// The node's uses since the last ``takeUses()``, left as they are.
        func peekUses() -> NodeUses { NodeUses(raw: recentlyUsed.load(ordering: .relaxed)) }

        /// Drops a paged leaf's contents if no access holds them; returns whether it did.
        func evict() -> Bool {
            let resident = NodeState.resident | NodeState.paged | NodeState.kindKnown
            let evicting = NodeState.paged | NodeState.kindKnown | NodeState.busy
            guard storedIsLeaf, state.compareExchange(expected: resident, desired: evicting,
                                                      ordering: .acquiringAndReleasing).exchanged else { return false }
            storedKeys = []
            storedValues = []
            unlockNode()
            return true
        }
    }
}
