import StrataStorage
import StrataTestSupport
import Testing
@testable import StrataEngine

/// The checkpoint's page allocator: runs of free pages by length.
@Suite("Page allocator")
struct PageAllocatorTests {
    @Test("runs are taken whole when their length fits, split when longer, and the file grows only when none fits")
    func takesRuns() {
        // Free: 10, 11, 12 (a run of 3), 20 (a run of 1), 30...34 (a run of 5).
        var allocator = PageAllocator(pageCount: 40, free: [34, 10, 20, 11, 31, 12, 30, 33, 32])
        #expect(allocator.allocate(3) == PageExtent(first: 10, count: 3))
        #expect(allocator.allocate(1) == PageExtent(first: 20, count: 1))
        #expect(allocator.allocate(2) == PageExtent(first: 30, count: 2))
        #expect(allocator.freePages == [32, 33, 34])
        #expect(allocator.allocate(4) == PageExtent(first: 40, count: 4))
        #expect(allocator.pageCount == 44)
        allocator.giveBack(PageExtent(first: 40, count: 4))
        #expect(allocator.freePages == [32, 33, 34, 40, 41, 42, 43])
    }

    @Test("random requests over random free pages never hand out a page twice or a page in use")
    func randomRequests() {
        let seed = SeededRandom.seedFromEnvironment()
        var random = SeededRandom(seed: seed)
        for round in 0..<50 {
            let pageCount = UInt64(2 + random.next() % 500)
            let free = (2..<pageCount).filter { _ in random.next() % 3 == 0 }
            var allocator = PageAllocator(pageCount: pageCount, free: free.shuffled(using: &random))
            #expect(allocator.freePages == free, "round \(round), seed \(seed)")
            var handedOut = Set<UInt64>()
            for _ in 0..<40 {
                let extent = allocator.allocate(UInt32(1 + random.next() % 5))
                for page in extent.pages {
                    #expect(handedOut.insert(page).inserted, "page \(page) twice, round \(round), seed \(seed)")
                    #expect(page >= pageCount || free.contains(page), "page \(page) in use, round \(round)")
                    #expect(page < allocator.pageCount)
                }
            }
            #expect(Set(allocator.freePages).isDisjoint(with: handedOut))
            #expect(Set(allocator.freePages).union(handedOut).isSuperset(of: free))
        }
    }
}
