import CStrataPrefetch
import Synchronization

/// Prefetch hints for a lookup's descent through a tree larger than the CPU's caches.
///
/// A lookup in a tree of integer keys waits for memory at every level: for the child's node,
/// then for the arrays the node points to (its keys, then its values or children). The node's
/// fields must arrive before the arrays' addresses are known, so each level costs two memory
/// round trips one after the other. A branch therefore remembers, per child slot, where that
/// child's arrays were when a lookup last read them, and how many keys the child had: a descent
/// choosing the slot starts loading the child's node, the cache line where the search of its
/// keys will start (the same interpolation the search uses, from the separators on either side)
/// and the matching line of its other array at once, and waits once instead of twice. When the
/// child is a branch, the slot also says where the child's own hints are, and the line holding
/// the hint the descent will read there next (at the same interpolated position) starts loading
/// too: the next level's hint is then not one more wait after the child's children array.
///
/// Hints are only hints. The search itself reads the child as it is (under its pin, as every
/// read does); a hint left stale by a change or an eviction (a private node rewritten in place, a
/// paged leaf's arrays freed and read again) starts loads from a wrong address, which costs a
/// little bandwidth and nothing else: a prefetch never faults and reads nothing. The lookup that
/// finds a hint stale records the child's current arrays. A branch is shared by the readers of
/// every snapshot that reaches it, so the words are atomics (relaxed: no reader relies on what a
/// hint says), written only when they change, so that in a steady state readers only read them.
/// A branch gets its hints (2 kB) from the first lookup that uses them and passes through it:
/// only trees of integer keys (rows, integer primary keys, backlinks) of 262,144 entries or more
/// have them, about 13 MB at 20M rows once lookups have reached every branch, and commits, which
/// copy the branches they change, make none.
extension SortedTree {
    struct DescentHints {
        /// ``wordsPerSlot`` words per child slot: the address of the child's keys storage, of its
        /// other array's storage (a leaf's values, a branch's children), its number of keys with
        /// the other array's element stride above bit 32, and the address of the child's own
        /// hints (0 for a leaf, or a branch without hints yet); zeros until a lookup records the
        /// slot.
        private let words: UnsafeMutablePointer<Atomic<UInt>>

        /// The smallest tree whose lookups use hints. In a smaller one the nodes a lookup needs
        /// are mostly in the CPU's caches (262,144 entries of a primary-key index take 4 MB),
        /// where recording and reading hints costs more than it saves: 8 ns of a 130 ns lookup at
        /// 1,000 rows, and at 100,000 rows lookups with hints took 191–223 ns against 163–221 ns
        /// without, where at 1,000,000 they save about 40 ns (alternating runs of 2026-11-30;
        /// BENCHMARKS.md, "Primary-key lookups: the last lookup's index and descent hints").
        static var minimumEntries: Int { 262_144 }

        /// The words of a slot (see ``words``): 32 bytes, two slots per cache line.
        static var wordsPerSlot: Int { 4 }

        /// Slots for a branch's children, including the one a branch holds for an instant before
        /// it splits.
        private static var slots: Int { SortedTree.branchCapacity + 1 }

        /// Hints for a branch, none recorded.
        static func allocate() -> DescentHints {
            let count = wordsPerSlot * slots
            let words = UnsafeMutablePointer<Atomic<UInt>>.allocate(capacity: count)
            for index in 0..<count { (words + index).initialize(to: Atomic(0)) }
            return DescentHints(words: words)
        }

        private init(words: UnsafeMutablePointer<Atomic<UInt>>) {
            self.words = words
        }

        /// The hints at `address` (an ``address`` of hints not yet freed).
        init(address: UInt) {
            words = UnsafeMutablePointer(bitPattern: address).unsafelyUnwrapped
        }

        /// Where the hints are, for a node to keep in an atomic word.
        var address: UInt { UInt(bitPattern: words) }

        /// Frees the words; with the branch that owns them.
        func deallocate() {
            words.deinitialize(count: Self.wordsPerSlot * Self.slots)
            words.deallocate()
        }

        /// Starts loading what a search for `key` in the child at `slot` reads first, if a
        /// lookup recorded where that child's arrays are; `bounds` are the separators on either
        /// side of the child (see ``Node/interpolatedPosition(of:count:within:)``).
        @inline(__always)
        func prefetchChild(at slot: Int, for key: Key, within bounds: SearchBounds) {
            // Branches never hold more children (pages are checked for it), but the words must
            // not be overrun even if one did.
            guard slot < Self.slots else { return }
            let base = Self.wordsPerSlot &* slot
            let keys = words[base].load(ordering: .relaxed)
            guard keys != 0 else { return }
            let second = words[base &+ 1].load(ordering: .relaxed)
            let sizes = words[base &+ 2].load(ordering: .relaxed)
            let childHints = words[base &+ 3].load(ordering: .relaxed)
            let count = Int(truncatingIfNeeded: sizes & 0xFFFF_FFFF), secondStride = Int(truncatingIfNeeded: sizes &>> 32)
            // The array's count, in its 32-byte header, is read before the search.
            strata_prefetch(UnsafeRawPointer(bitPattern: keys))
            guard let position = Node.interpolatedPosition(of: key, count: count, within: bounds) else { return }
            strata_prefetch(UnsafeRawPointer(bitPattern: keys &+ UInt(Self.arrayHeader &+ position &* MemoryLayout<Key>.stride)))
            // A leaf's value sits at the key's position; a branch's child at it or just after.
            let secondOffset = Self.arrayHeader &+ position &* secondStride
            strata_prefetch(UnsafeRawPointer(bitPattern: second &+ UInt(secondOffset)))
            strata_prefetch(UnsafeRawPointer(bitPattern: second &+ UInt(secondOffset &+ secondStride)))
            // A branch child's own slot for the grandchild: the child at the key's position or
            // just after it, as for the children array (two slots share a line).
            if childHints != 0 {
                strata_prefetch(UnsafeRawPointer(bitPattern: childHints &+ UInt(position &* Self.wordsPerSlot &* 8)))
            }
        }

        /// Records where the child at `slot` keeps its arrays and its own hints, unless that is
        /// what the slot says.
        @inline(__always)
        func record(slot: Int, keys: UInt, count: Int, second: UInt, secondStride: Int, childHints: UInt) {
            guard slot < Self.slots else { return }
            let base = Self.wordsPerSlot &* slot
            Self.update(words[base &+ 3], childHints)
            Self.update(words[base], keys)
            Self.update(words[base &+ 1], second)
            Self.update(words[base &+ 2], UInt(truncatingIfNeeded: count) | UInt(truncatingIfNeeded: secondStride) &<< 32)
        }

        /// Where the child at `slot` keeps its own hints, as a lookup last recorded it (0: none).
        func recordedChildHints(slot: Int) -> UInt {
            slot < Self.slots ? words[Self.wordsPerSlot &* slot &+ 3].load(ordering: .relaxed) : 0
        }

        /// Whether a lookup recorded the child at `slot`.
        func isRecorded(slot: Int) -> Bool { slot < Self.slots && words[Self.wordsPerSlot &* slot].load(ordering: .relaxed) != 0 }

        @inline(__always)
        private static func update(_ word: borrowing Atomic<UInt>, _ value: UInt) {
            if word.load(ordering: .relaxed) != value { word.store(value, ordering: .relaxed) }
        }

        /// The bytes of an `Array`'s storage before its first element.
        private static var arrayHeader: Int { 32 }
    }

    /// A branch's hints and the slot of the child a descent moved to: where the descent records
    /// that child's arrays once it has read them.
    struct HintSlot {
        let hints: DescentHints
        let slot: Int

        /// Records the storage at `keys` (`count` keys) and at `second` (a leaf's values, a
        /// branch's children: `Second`s) as the child's arrays, and `childHints` as where a branch
        /// child keeps its own hints (0 for a leaf, or a branch without hints yet). The addresses
        /// are plain words (see `Node.storageAddress(of:)`): recording retains nothing.
        @inline(__always)
        func record<Second>(keys: UInt, count: Int, second: UInt, of _: Second.Type, childHints: UInt = 0) {
            hints.record(slot: slot, keys: keys, count: count, second: second,
                         secondStride: MemoryLayout<Second>.stride, childHints: childHints)
        }
    }
}

extension SortedTree {
    /// How many children of the tree's branches have hints recorded (see ``DescentHints``), and
    /// how many children the branches have; and of the children that are branches with hints of
    /// their own, how many there are and how many their parent's slot points to: what tests check
    /// the hints against.
    var descentHintCoverage: DescentHintCoverage { root.descentHintCoverage }

    /// See ``descentHintCoverage``.
    struct DescentHintCoverage: Equatable {
        var recorded = 0
        var children = 0
        var linkedBranches = 0
        var branchesWithHints = 0
    }
}

extension SortedTree.Node {
    /// ``SortedTree/descentHintCoverage`` of this subtree.
    var descentHintCoverage: SortedTree.DescentHintCoverage {
        guard !isLeaf else { return .init() }
        let children = self.children
        var coverage = SortedTree.DescentHintCoverage(children: children.count)
        for (slot, child) in children.enumerated() {
            if descentHints?.isRecorded(slot: slot) == true { coverage.recorded += 1 }
            if let childHints = child.descentHints {
                coverage.branchesWithHints += 1
                if descentHints?.recordedChildHints(slot: slot) == childHints.address { coverage.linkedBranches += 1 }
            }
            let below = child.descentHintCoverage
            coverage.recorded += below.recorded
            coverage.children += below.children
            coverage.linkedBranches += below.linkedBranches
            coverage.branchesWithHints += below.branchesWithHints
        }
        return coverage
    }
}
