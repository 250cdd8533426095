import StrataStorage

/// Hands out the pages one checkpoint writes: runs of consecutive pages (an image takes one page,
/// or several when it continues in overflow pages), from the free pages where a run is long
/// enough, else from the end of the file.
///
/// The free pages are those the current header does not reach; the pages a checkpoint frees
/// (reached by the current header, not by the new one) join them only after it, so a checkpoint
/// never overwrites a page the header it replaces still reaches.
///
/// The free pages are kept as maximal runs, bucketed by length: a request of n pages takes the
/// lowest run of exactly n pages, else splits the shortest longer run (its rest goes back to the
/// buckets), else grows the file. Each request costs O(1) plus, when no run of its length is
/// left, a look at the lengths there are.
struct PageAllocator {
    /// The pages of the file: every page handed out lies below this.
    private(set) var pageCount: UInt64
    /// The first pages of the free runs of each length; each list descending, so that the lowest
    /// run is taken first.
    private var runs: [UInt32: [UInt64]] = [:]

    /// An allocator over a file of `pageCount` pages of which `free` (any order) are free.
    init(pageCount: UInt64, free: [UInt64]) {
        self.pageCount = pageCount
        var start: UInt64?
        var length: UInt32 = 0
        for page in free.sorted() {
            if let first = start, page == first + UInt64(length) {
                length += 1
                continue
            }
            if let first = start { runs[length, default: []].append(first) }
            start = page
            length = 1
        }
        if let first = start { runs[length, default: []].append(first) }
        for length in runs.keys { runs[length]!.reverse() }
    }

    /// The free pages left, ascending.
    var freePages: [UInt64] {
        var pages: [UInt64] = []
        for (length, firsts) in runs {
            for first in firsts { pages.append(contentsOf: first..<first + UInt64(length)) }
        }
        return pages.sorted()
    }

    /// Takes `count` consecutive pages.
    mutating func allocate(_ count: UInt32) -> PageExtent {
        if let first = takeRun(of: count) { return PageExtent(first: first, count: count) }
        if let longer = runs.keys.filter({ $0 > count }).min(), let first = takeRun(of: longer) {
            giveBack(PageExtent(first: first + UInt64(count), count: longer - count))
            return PageExtent(first: first, count: count)
        }
        defer { pageCount += UInt64(count) }
        return PageExtent(first: pageCount, count: count)
    }

    /// Gives back an extent this allocator handed out and nothing wrote.
    mutating func giveBack(_ extent: PageExtent) {
        runs[extent.count, default: []].append(extent.first)
    }

    private mutating func takeRun(of length: UInt32) -> UInt64? {
        guard let first = runs[length]?.popLast() else { return nil }
        if runs[length]!.isEmpty { runs[length] = nil }
        return first
    }
}
