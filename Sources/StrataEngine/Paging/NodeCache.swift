import Synchronization
import StrataSupport

/// A tree leaf a ``NodeCache`` can hold and evict (a ``SortedTree/Node`` of any tree).
protocol CachedNode: AnyObject, Sendable {
    /// Whether the leaf is resident, paged and its page still in use (so it can be evicted).
    var isEvictable: Bool { get }
    /// Clears and returns the leaf's uses since the last call.
    func takeUses() -> NodeUses
    /// The leaf's uses since the last ``takeUses()``, left as they are.
    func peekUses() -> NodeUses
    /// Drops the leaf's contents unless an access holds them or they are being read.
    func evict() -> Bool
    /// Reads the contents if they are not in memory and never evicts them again.
    func keepResident()
}

extension SortedTree.Node: CachedNode {}

/// What a leaf records of its uses between two passes of a ``NodeCache``'s clock hand: whether
/// it was used at all, and how many uses found it in memory (cache hits; a use that read its
/// page is a miss, counted by ``NodeCache/nodeReads``).
struct NodeUses {
    /// The bit that says the leaf was used (set by a use that read its page).
    static let usedFlag: UInt = 1 << (UInt.bitWidth - 1)
    /// The recorded value: the flag and the hit count below it.
    let raw: UInt

    /// Whether the leaf was used.
    var wasUsed: Bool { raw != 0 }
    /// The uses that found it in memory.
    var hits: Int { Int(raw & ~Self.usedFlag) }
}

/// Bounds the memory a store's paged tree leaves take while resident.
///
/// Every leaf read from the page file, and every leaf a checkpoint writes, is admitted with its
/// estimated size (see ``PageLoader/estimatedResidentBytes(imageBytes:entries:)``). When the
/// admitted total exceeds the capacity, a clock hand sweeps the admitted leaves: a leaf used
/// since the hand last passed gets a second chance, any other is evicted (its contents dropped;
/// the next access reads its page again), until the total is back under 7/8 of the capacity.
/// Leaves that no tree holds any more are dropped as the hand meets them.
///
/// Changes not checkpointed yet are not admitted (they cannot be dropped before a checkpoint
/// writes them), but the cache counts the leaves writers copy out of their pages (see
/// ``noteDirtied(bytes:)``), and the store starts a checkpoint when their estimated size passes a
/// share of the capacity (see ``dirtyLimit``), so random updates across a large store do not
/// hold a private copy of every leaf they touched until the log reaches its threshold.
///
/// What is not bounded here: branches (a few percent of a tree, resident once read), leaves whose
/// page a checkpoint freed while an older snapshot still holds them (they stay with that
/// snapshot), and whatever a reader copied out of a leaf (a row it holds, an iterator's current
/// leaf).
final class NodeCache: Sendable {
    /// The most bytes of admitted leaves before the hand sweeps.
    let capacity: Int
    private let state: LockedValueBox<State>

    private struct State {
        var entries: [Entry] = []
        var bytes = 0
        var hand = 0
        var evictions = 0
        /// The hits of leaves the hand has passed or dropped (see ``NodeUses``).
        var hits = 0
    }

    private struct Entry {
        /// The leaf, as a plain object so that the cache can tell when it holds the last reference.
        var object: AnyObject
        var bytes: Int
        var node: any CachedNode {
            // Safety: only ``CachedNode``s are admitted.
            object as! any CachedNode
        }
    }

    /// Creates a cache of `capacity` bytes.
    init(capacity: Int) {
        self.capacity = max(capacity, 0)
        state = LockedValueBox(State())
    }

    /// The bytes of the leaves admitted and not evicted or dropped yet.
    var residentBytes: Int { state.withLockedValue { $0.bytes } }

    /// Whether the admitted leaves fill the cache (at least the 7/8 a sweep leaves): scans then
    /// read leaves that are not in memory without admitting them (see
    /// ``SortedTree/Node/entriesReadThrough()``).
    var isFull: Bool { state.withLockedValue { $0.bytes >= capacity - capacity / 8 } }

    /// How many uses of admitted leaves found them in memory since the cache was made (the
    /// misses are the reads, ``nodeReads``). Leaves a scan reads through a full cache are
    /// neither (see ``SortedTree/Node/entriesReadThrough()``).
    ///
    /// - Complexity: O(n) in the admitted leaves (their counts since the hand last passed).
    var hits: Int {
        state.withLockedValue { state in state.entries.reduce(state.hits) { $0 + $1.node.peekUses().hits } }
    }

    /// How many leaves were evicted since the cache was made.
    var evictions: Int { state.withLockedValue { $0.evictions } }

    /// The estimated bytes of the leaves writers copied out of their pages since the last
    /// ``takeDirtyBytes()``: changes a checkpoint has to write before their memory can be
    /// bounded by the cache.
    var dirtyBytes: Int { dirty.load(ordering: .relaxed) }
    private let dirty = Atomic<Int>(0)

    /// The ``dirtyBytes`` past which the store starts a checkpoint: a quarter of the capacity,
    /// at least 1 MiB. Measured with the default 256 MiB (the scale series, random single-row
    /// updates): 20,000 updates over 5M rows start 10 checkpoints, which write 1.6 times the
    /// log's bytes, and hold 225 MB before the last instead of 388; 100,000 of them hold 367 MB
    /// instead of 1,070. Checkpoints this frequent are cheap only because a leaf changed while
    /// one runs is written by the next as a delta of the page the running one wrote (see
    /// ``SortedTree/BaseBox``).
    var dirtyLimit: Int { max(capacity / 4, 1 << 20) }

    /// Counts a leaf a writer copied out of its page (a leaf read from the file or written by a
    /// checkpoint, changed for the first time since), whose contents take an estimated `bytes`.
    func noteDirtied(bytes: Int) { dirty.wrappingAdd(bytes, ordering: .relaxed) }

    /// Returns ``dirtyBytes`` and starts counting again from zero: called by a checkpoint as it
    /// takes the snapshot it writes, whose changed leaves are then the checkpoint's to write.
    func takeDirtyBytes() -> Int { dirty.exchange(0, ordering: .relaxed) }

    /// Counts `bytes` again that ``takeDirtyBytes()`` took for a checkpoint that then failed.
    func restoreDirtyBytes(_ bytes: Int) { dirty.wrappingAdd(bytes, ordering: .relaxed) }

    /// How many tree nodes were read from the store's pages since the cache was made.
    var nodeReads: Int { reads.load(ordering: .relaxed) }
    private let reads = Atomic<Int>(0)

    /// Counts one node read from its pages.
    func noteRead() { reads.wrappingAdd(1, ordering: .relaxed) }

    /// Admits a leaf just made resident, whose contents take an estimated `bytes`, then sweeps if
    /// the cache is over capacity. The caller passes the size: the cache reads nothing of the
    /// leaf's but its flags (a size kept in the leaf was rewritten by a checkpoint recording the
    /// leaf's page while another thread admitted it, a race the cache's lock did not order).
    func admit(_ node: any CachedNode, bytes: Int) {
        state.withLockedValue { state in
            state.entries.append(Entry(object: node, bytes: bytes))
            state.bytes += bytes
            if state.bytes > capacity { sweep(&state) }
        }
    }

    private func sweep(_ state: inout State) {
        let target = capacity - capacity / 8
        var passed = 0
        while state.bytes > target, !state.entries.isEmpty, passed <= 2 * state.entries.count {
            if state.hand >= state.entries.count { state.hand = 0 }
            let drop: Bool
            // Asked before the leaf is cast (a cast holds another reference for a moment).
            let unreferenced = isKnownUniquelyReferenced(&state.entries[state.hand].object)
            let uses = state.entries[state.hand].node.takeUses()
            state.hits += uses.hits
            if unreferenced {
                drop = true  // no tree holds the leaf any more
            } else {
                let node = state.entries[state.hand].node
                if !node.isEvictable {
                    drop = true  // its page was freed: it stays with the snapshots holding it
                } else if uses.wasUsed {
                    drop = false
                } else {
                    drop = node.evict()
                    if drop { state.evictions += 1 }
                }
            }
            if drop {
                state.bytes -= state.entries[state.hand].bytes
                state.entries.swapAt(state.hand, state.entries.count - 1)
                state.entries.removeLast()
            } else {
                state.hand += 1
                passed += 1
            }
        }
    }
}
