import StrataStorage

/// The pages one checkpoint writes, as it places them.
struct CheckpointPages {
    let layout: PageLayout
    /// Whether every node is written, whatever the last checkpoint wrote (a new file: a copy or
    /// a compaction), rather than only the changed ones.
    let rewritesAll: Bool
    var allocator: PageAllocator
    /// The page writes so far.
    var writes: [PageFile.PageWrite] = []
    /// The first pages of the unchanged subtrees the new checkpoint refers to where they are.
    var kept: Set<UInt64> = []
    /// The leaves of the previous checkpoint whose pages this one frees.
    var freedLeaves: [FreedLeaf] = []
    /// What to record once the checkpoint is durable, given the file written and the store's
    /// node cache: each written node's new extent and loader.
    var written: [(PageFile, NodeCache?) -> Void] = []
    /// Where the writes go as they pile up (a new file's pages, written in batches so that a
    /// compaction or copy never holds the whole store's encoding), or nil to keep them all in
    /// `writes`.
    private let sink: (([PageFile.PageWrite]) throws -> Void)?
    /// The bytes of payload in `writes`.
    private var pendingBytes = 0
    /// The first error the sink threw: the rest of the plan is then not written.
    private(set) var sinkFailure: (any Error)?

    /// The most payload bytes kept before they are handed to the sink.
    static let batchBytes = 8 << 20

    init(layout: PageLayout, allocator: PageAllocator, rewritesAll: Bool = false,
         sink: (([PageFile.PageWrite]) throws -> Void)? = nil) {
        self.layout = layout
        self.rewritesAll = rewritesAll
        self.allocator = allocator
        self.sink = sink
    }

    /// Allocates pages for `image` and adds their writes; returns where the image goes.
    mutating func place(_ image: [UInt8], kind: PageKind) -> PageExtent {
        let extent = allocator.allocate(layout.pageCount(forImageOf: image.count))
        writes.append(contentsOf: layout.pageWrites(for: image, kind: kind, at: extent))
        pendingBytes += image.count
        if sink != nil, pendingBytes >= Self.batchBytes { flush() }
        return extent
    }

    /// Hands the pending writes to the sink (when there is one and it has not failed).
    mutating func flush() {
        guard let sink, sinkFailure == nil, !writes.isEmpty else { return }
        do {
            try sink(writes)
        } catch {
            sinkFailure = error
        }
        writes.removeAll(keepingCapacity: true)
        pendingBytes = 0
    }
}
