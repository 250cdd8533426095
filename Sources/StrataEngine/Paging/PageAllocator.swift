import StrataStorage

/// Hands out the pages one checkpoint writes: single pages from the free pages, lowest first,
/// and runs of several pages from a run of free pages or else from the end of the file.
///
/// The free pages are those the current header does not reach; the pages a checkpoint frees
/// (reached by the current header, not by the new one) join them only after it, so a checkpoint
/// never overwrites a page the header it replaces still reaches.
struct PageAllocator {
    /// The pages of the file: every page handed out lies below this.
    private(set) var pageCount: UInt64
    /// The free pages, descending (the lowest is last, so it goes first).
    private var free: [UInt64]

    /// An allocator over a file of `pageCount` pages of which `free` (any order) are free.
    init(pageCount: UInt64, free: [UInt64]) {
        self.pageCount = pageCount
        self.free = free.sorted(by: >)
    }

    /// The free pages left, ascending.
    var freePages: [UInt64] { free.reversed() }

    /// Takes `count` consecutive pages.
    mutating func allocate(_ count: UInt32) -> PageExtent {
        if count == 1, let page = free.popLast() { return PageExtent(first: page, count: 1) }
        if count > 1, let run = takeRun(count) { return run }
        defer { pageCount += UInt64(count) }
        return PageExtent(first: pageCount, count: count)
    }

    /// Gives back an extent this allocator handed out and nothing wrote.
    mutating func giveBack(_ extent: PageExtent) {
        free.append(contentsOf: extent.pages)
        free.sort(by: >)
    }

    /// The lowest run of `count` consecutive free pages, taken out of the free pages.
    ///
    /// - Complexity: O(f) in the number of free pages (runs are rare: only images larger than a page).
    private mutating func takeRun(_ count: UInt32) -> PageExtent? {
        guard free.count >= Int(count) else { return nil }
        // `free` is descending: a run of n pages from p is the n entries p+n-1 ... p.
        var index = free.count - 1
        while index >= Int(count) - 1 {
            let first = free[index]
            let last = free[index - Int(count) + 1]
            if last - first == UInt64(count) - 1 {
                free.removeSubrange((index - Int(count) + 1)...index)
                return PageExtent(first: first, count: count)
            }
            index -= 1
        }
        return nil
    }
}
