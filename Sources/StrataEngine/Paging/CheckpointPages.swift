import StrataStorage

/// The pages of the previous checkpoint a new one refers to, by first page.
struct KeptPages {
    /// The unchanged subtrees: the very nodes the previous checkpoint wrote (or read).
    var same: Set<UInt64> = []
    /// The pages of changed nodes whose images the new checkpoint keeps: a leaf written as a
    /// delta of its page (see ``LeafDelta``), a branch whose image came out the same. The nodes
    /// of the previous checkpoint there are superseded, their pages not freed.
    var reused: Set<UInt64> = []

    /// Whether some page is both (two nodes of the new checkpoint claim one page).
    var conflict: Bool { !same.isDisjoint(with: reused) }
}

/// The pages one checkpoint writes, as it places them.
struct CheckpointPages {
    let layout: PageLayout
    /// Whether every node is written, whatever the last checkpoint wrote (a new file: a copy or
    /// a compaction), rather than only the changed ones.
    let rewritesAll: Bool
    /// Where the previous checkpoint's deltas are read from, when a changed leaf may be written as
    /// a delta of its page (nil: every changed node is written whole).
    let deltaSource: PageFile?
    /// The delta directory of the previous checkpoint.
    let previousDeltas: [UInt64: LeafDeltaHandle]
    var allocator: PageAllocator
    /// The page writes so far.
    var writes: [PageFile.PageWrite] = []
    /// The pages of the previous checkpoint this one refers to.
    var kept = KeptPages()
    /// How the delta directory changes: a leaf's first page → its new delta, or nil when the
    /// leaf now equals its page image.
    var deltaUpdates: [UInt64: LeafDeltaHandle?] = [:]
    /// The leaf-deltas page being filled: its number and payload.
    private var openDeltaPage: (number: UInt64, payload: [UInt8])?
    /// The bytes of deltas placed so far.
    private(set) var deltaBytes = 0
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

    init(layout: PageLayout, allocator: PageAllocator, rewritesAll: Bool = false, deltaSource: PageFile? = nil,
         previousDeltas: [UInt64: LeafDeltaHandle] = [:], sink: (([PageFile.PageWrite]) throws -> Void)? = nil) {
        self.layout = layout
        self.rewritesAll = rewritesAll
        self.deltaSource = rewritesAll ? nil : deltaSource
        self.previousDeltas = previousDeltas
        self.allocator = allocator
        self.sink = sink
    }

    /// Places `record` (at most a page's payload) in the leaf-deltas page being filled, starting
    /// another when it does not fit; returns where it is.
    mutating func placeDelta(_ record: [UInt8]) -> LeafDeltaRef {
        precondition(!record.isEmpty && record.count <= layout.payloadCapacity, "CheckpointPages: a delta of \(record.count) bytes")
        if let page = openDeltaPage, page.payload.count + record.count > layout.payloadCapacity { finishDeltas() }
        if openDeltaPage == nil { openDeltaPage = (allocator.allocate(1).first, []) }
        let ref = LeafDeltaRef(page: openDeltaPage!.number, offset: openDeltaPage!.payload.count, length: record.count)
        openDeltaPage!.payload.append(contentsOf: record)
        deltaBytes += record.count
        return ref
    }

    /// Adds the write of the leaf-deltas page being filled, if any.
    mutating func finishDeltas() {
        guard let page = openDeltaPage else { return }
        openDeltaPage = nil
        addWrites(layout.pageWrites(for: page.payload, kind: .leafDeltas, at: PageExtent(first: page.number, count: 1)),
                  bytes: page.payload.count)
    }

    /// Allocates pages for `image` and adds their writes; returns where the image goes.
    mutating func place(_ image: [UInt8], kind: PageKind) -> PageExtent {
        let extent = allocator.allocate(layout.pageCount(forImageOf: image.count))
        addWrites(layout.pageWrites(for: image, kind: kind, at: extent), bytes: image.count)
        return extent
    }

    private mutating func addWrites(_ pageWrites: [PageFile.PageWrite], bytes: Int) {
        writes.append(contentsOf: pageWrites)
        pendingBytes += bytes
        if sink != nil, pendingBytes >= Self.batchBytes { flush() }
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
