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
    /// What to record once the checkpoint is durable, given the file written and the store's
    /// node cache: each written node's new extent and loader.
    var written: [(PageFile, NodeCache?) -> Void] = []

    init(layout: PageLayout, allocator: PageAllocator, rewritesAll: Bool = false) {
        self.layout = layout
        self.rewritesAll = rewritesAll
        self.allocator = allocator
    }

    /// Allocates pages for `image` and adds their writes; returns where the image goes.
    mutating func place(_ image: [UInt8], kind: PageKind) -> PageExtent {
        let extent = allocator.allocate(layout.pageCount(forImageOf: image.count))
        writes.append(contentsOf: layout.pageWrites(for: image, kind: kind, at: extent))
        return extent
    }
}
