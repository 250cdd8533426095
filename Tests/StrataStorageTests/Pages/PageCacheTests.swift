@testable import StrataStorage
import StrataSupport
import Testing

@Suite("Page cache")
struct PageCacheTests {
    @Test("under seeded random reads resident bytes never exceed the bound, counters add up, every read is right")
    func boundedRandomReads() throws {
        let seed = SeededRandom.seedFromEnvironment()
        print("page cache random reads: STRATA_SEED=\(seed)")
        var random = SeededRandom(seed: seed)
        try withTemporaryDirectory { directory in
            let path = directory.file("store.pages")
            try PageFile.create(path: path, pageSize: 4096, storeID: 1).checkpoint(pages: Array(2..<66))
            for bound in [0, 4096 * 10 + 100, 4096 * 64] {
                let file = try PageFile.open(path: path, options: .init(cacheBytes: bound))
                #expect(file.cache.capacityPages == bound / 4096)
                var distinct = Set<UInt64>()
                for read in 1...2000 {
                    // Skewed: half the reads go to 8 hot pages.
                    let number = random.next() % 2 == 0 ? 2 + random.next() % 8 : 2 + random.next() % 64
                    distinct.insert(number)
                    try file.expectPage(number, writtenBy: 1)
                    let statistics = file.cache.statistics
                    #expect(statistics.residentBytes <= bound)
                    #expect(statistics.residentBytes == statistics.residentPages * 4096)
                    #expect(statistics.hits + statistics.misses == read)
                    if bound > 0 {
                        #expect(statistics.residentPages == min(distinct.count, file.cache.capacityPages))
                        #expect(statistics.evictions == statistics.misses - statistics.residentPages)
                    }
                }
                let statistics = file.cache.statistics
                print("page cache bound \(bound): \(statistics)")
                if bound == 0 { #expect(statistics.hits == 0 && statistics.residentPages == 0) }
                if bound == 4096 * 64 { #expect(statistics.evictions == 0 && statistics.misses == 64) }
            }
        }
    }

    @Test("CLOCK keeps a page read again before the hand comes round")
    func clockKeepsReferencedPages() {
        let cache = PageCache(capacityBytes: 3 * 4096, pageSize: 4096)
        let page = PageFrame.Decoded(kind: .treeLeaf, generation: 1, payload: [1])
        for number: UInt64 in 2...4 { cache.insert(page, number: number) }
        #expect(cache.lookup(2) != nil)
        cache.insert(page, number: 5)  // evicts 3: 2 was referenced
        #expect(cache.lookup(2) != nil && cache.lookup(3) == nil && cache.lookup(4) != nil && cache.lookup(5) != nil)
        #expect(cache.statistics.evictions == 1 && cache.statistics.residentBytes == 3 * 4096)
    }
}

/// Many threads read through one page file while checkpoints add pages: run under ThreadSanitizer.
@Suite("Page cache concurrency")
struct PageCacheConcurrencyTests {
    @Test("4 threads reading at random through a small cache, beside a checkpointing thread, all read the right bytes")
    func concurrentReaders() throws {
        let seed = SeededRandom.seedFromEnvironment()
        print("page cache concurrency: STRATA_SEED=\(seed)")
        try withTemporaryDirectory { directory in
            let path = directory.file("store.pages")
            try PageFile.create(path: path, pageSize: 4096, storeID: 1).checkpoint(pages: Array(2..<34))
            let file = try PageFile.open(path: path, options: .init(cacheBytes: 8 * 4096))
            let failures = FailureLog()
            // runOnThreads' generous default deadline: it is there to catch a hang, and the checkpoints'
            // syncs share the disk with the other suites' (under ThreadSanitizer in CI they once took
            // 93 s together).
            let finished = runOnThreads(5) { thread in
                do {
                    if thread == 4 {
                        // Checkpoints write pages no reader reads (34 ..< 54), as the engine's would.
                        for round: UInt64 in 0..<20 { try file.checkpoint(pages: [34 + round]) }
                        return
                    }
                    var random = SeededRandom(seed: seed &+ UInt64(thread))
                    for _ in 0..<1500 {
                        let number = 2 + random.next() % 32
                        let page = try file.read(page: number)
                        if page.generation != 1
                            || page.payload != pagePayload(number: number, generation: 1, capacity: file.payloadCapacity) {
                            failures.record("thread \(thread): page \(number) read wrong")
                        }
                    }
                } catch {
                    failures.record("thread \(thread): \(error)")
                }
            }
            #expect(finished)
            #expect(failures.all.isEmpty, "\(failures.all)")
            let statistics = file.cache.statistics
            #expect(statistics.residentBytes <= 8 * 4096)
            #expect(statistics.hits + statistics.misses >= 4 * 1500)
            #expect(file.header.generation == 21)
        }
    }
}
