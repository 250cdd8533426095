import StrataEngine
import Testing

/// The power-loss model itself: what it keeps, what it may drop, and which commits it counts
/// as durable, on hand-written traces.
@Suite("Crash file system model")
struct CrashFileSystemTests {
    private static let a = [UInt8](repeating: 0xA1, count: 100)
    private static let b = [UInt8](repeating: 0xB2, count: 5000)
    private static let c = [UInt8](repeating: 0xC3, count: 100)

    private func model(_ trace: [TraceEvent]) -> CrashFileSystem {
        var model = CrashFileSystem()
        for event in trace { model.apply(event) }
        return model
    }

    @Test("bytes written before a sync started survive; later ones survive only sector by sector, up to the old or new length")
    func syncedBytesSurvive() {
        let model = model([
            .opened("f", truncated: true), .directorySyncStarted, .directorySyncFinished,
            .wrote("f", offset: 0, bytes: Self.a), .syncStarted("f"),
            .wrote("f", offset: 100, bytes: Self.b), .syncFinished("f"),
            .wrote("f", offset: 5100, bytes: Self.c),
        ])
        #expect(model.syncedOnlyState() == ["f": Self.a])
        let latest = Self.a + Self.b + Self.c
        let synced = Self.a + [UInt8](repeating: 0, count: Self.b.count + Self.c.count)
        var random = SeededRandom(seed: 7)
        var lengths = Set<Int>()
        var sawNewPage = false
        for _ in 0..<64 {
            let file = model.crashState(using: &random).files["f"]!
            lengths.insert(file.count)
            #expect(Array(file.prefix(100)) == Self.a)
            for sector in stride(from: 0, to: file.count, by: 512) {
                let range = sector..<min(file.count, sector + 512)
                let bytes = Array(file[range])
                let new = Array(latest[range])
                let old = Array(synced[range])
                #expect(bytes == new || bytes == old, "sector at \(sector) is neither old nor new")
                if sector == 4096 && bytes == new { sawNewPage = true }
            }
        }
        #expect(lengths == [100, 5200])
        #expect(sawNewPage)
    }

    @Test("a rename not followed by a directory sync may or may not have happened; after one it has")
    func renameNeedsDirectorySync() {
        let renamed: [TraceEvent] = [
            .opened("x.tmp", truncated: true), .wrote("x.tmp", offset: 0, bytes: Self.a), .syncStarted("x.tmp"),
            .syncFinished("x.tmp"), .renamed("x.tmp", to: "x"),
        ]
        var random = SeededRandom(seed: 11)
        var outcomes = Set<[String]>()
        for _ in 0..<64 { outcomes.insert(model(renamed).crashState(using: &random).files.keys.sorted()) }
        #expect(outcomes == [[], ["x.tmp"], ["x"]])
        let synced = model(renamed + [.directorySyncStarted, .directorySyncFinished])
        for _ in 0..<16 { #expect(synced.crashState(using: &random).files == ["x": Self.a]) }
    }

    @Test("what a failed sync was to cover never counts as synced, even after a later sync succeeds")
    func failedSyncLosesData() {
        let model = model([
            .opened("f", truncated: true), .directorySyncStarted, .directorySyncFinished,
            .wrote("f", offset: 0, bytes: Self.a), .syncFailed("f"),
            .wrote("f", offset: 100, bytes: Self.c), .syncStarted("f"), .syncFinished("f"),
        ])
        #expect(model.syncedOnlyState() == ["f": [UInt8](repeating: 0, count: 100) + Self.c])
    }

    @Test("a .full commit is durable once acknowledged; a .normal one once a log sync started after it finishes")
    func durabilityTimeline() {
        let trace: [TraceEvent] = [
            .acknowledged(1), .syncStarted("s.log.1"), .acknowledged(2), .syncFinished("s.log.1"), .acknowledged(3),
        ]
        let full = DurabilityTimeline(trace: trace, durability: .full)
        #expect(full.commits(before: 0) == [])
        #expect(full.commits(before: 1) == [1])
        #expect(full.commits(before: 5) == [1, 2, 3])
        let normal = DurabilityTimeline(trace: trace, durability: .normal)
        #expect(normal.commits(before: 3) == [])
        #expect(normal.commits(before: 4) == [1])
        #expect(normal.commits(before: 5) == [1])
    }
}
