#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
@testable import StrataStorage
import StrataSupport
import Testing

/// Fails each write, sync and truncate of a page-file checkpoint in turn (see ``FaultCase``),
/// with the checkpoint growing the file so that every step is reached.
///
/// The steps of a checkpoint: the page writes, growing the file (ftruncate), sync 1, the slot
/// write, sync 2. At every position: the checkpoint throws the fault's `fileAccess` error with
/// its errno (a `pwrite` the loop completes is no error); a fault at the slot write or the sync
/// after it poisons the file (the next checkpoint throws `poisoned`), an earlier one does not; the
/// previous generation still reads whole; the file
/// reopens at the previous generation when the fault hit before the slot write, at the previous
/// or the new one when it hit the slot write (a short write may leave the slot whole, since its
/// tail is zeros on both sides), at the new one after a failed sync 2 (the slot is in the page
/// cache, which this file system keeps), each whole; the synced-only state (the
/// worst power cut, a failed sync counting as lost) opens at the previous generation, whole;
/// and the reopened file takes a new checkpoint.
@Suite("Page file fault sweep")
struct PageFileFaultTests {
    static let cases = FaultCase.all.filter { [.write, .sync, .truncate].contains($0.operation) }

    @Test("each write, sync or truncate fault at each step of a checkpoint is typed, poisons from the slot write on, and keeps a whole generation",
          arguments: cases)
    func sweep(_ fault: FaultCase) throws {
        var outcomes: [String] = []
        while outcomes.count < 32, let outcome = try Self.run(fault, position: outcomes.count) {
            outcomes.append(outcome)
        }
        print("page file fault sweep [\(fault.name)]: \(outcomes.joined(separator: ", "))")
        #expect(!outcomes.isEmpty, "the fault was never reached")
    }

    /// Injects `fault` at the `position`-th matching operation of the fourth checkpoint; returns
    /// the generation the file reopened at, or nil when the checkpoint has fewer such operations.
    static func run(_ fault: FaultCase, position: Int) throws -> String? {
        let directory = try TemporaryDirectory.create(prefix: "strata-pagefault", in: TemporaryDirectory.memoryBackedParent)
        defer {
            StorageFaults.shared.removeRules(matching: directory.name)
            directory.remove()
        }
        let path = directory.file("store.pages")
        let label = "[\(fault.name), position \(position)]"
        var workload = PageFileWorkload(seed: 1)
        var reached = true
        /// The generations the file may reopen at.
        var expected: Set<UInt64> = [4]
        let trace = try IOTraceRecorder.record(directory: directory.path) { _ in
            let file = try PageFile.create(path: path, pageSize: 4096, storeID: 9)
            for _ in 1...3 { try workload.checkpoint(file) }

            StorageFaults.shared.inject(fault.fault, on: fault.operation, matching: directory.name, skipping: position)
            let result = Result { try workload.checkpoint(file, grow: true) }
            guard !StorageFaults.shared.isArmed(matching: directory.name) else {
                reached = false
                return
            }
            StorageFaults.shared.removeRules(matching: directory.name)
            switch result {
            case .success:
                #expect(fault.expectedErrno == nil, "\(label): the checkpoint succeeded")
                #expect(file.header.generation == 4)
            case .failure(let error as StrataError):
                #expect(error.code == .fileAccess && error.errno == fault.expectedErrno, "\(label): \(error)")
                #expect(file.header.generation == 3, "\(label): a failed checkpoint became current")
                // Before the slot write, only the previous slot is on disk; a slot write that failed
                // part way may have left the new slot whole; after sync 2 failed, the slot is in the
                // page cache, which this file system keeps.
                let slotWrite = fault.operation == .write && (error.offset ?? .max) < 2 * 4096
                let afterSlot = fault.operation == .sync && position == 1
                expected = slotWrite ? [3, 4] : afterSlot ? [4] : [3]
                if slotWrite || afterSlot {
                    do {
                        try workload.checkpoint(file)
                        Issue.record("\(label): a checkpoint after the failure was written")
                    } catch let error as StrataError {
                        #expect(error.code == .poisoned, "\(label): \(error)")
                    }
                } else {
                    // No header reaches what the failed checkpoint wrote: the file is not poisoned.
                    #expect(file.poison.error == nil, "\(label): a failure before the slot write poisoned the file")
                }
                #expect(PageFileWorkload.problems(in: file).isEmpty, "\(label): the old generation no longer reads")
            case .failure(let error):
                Issue.record("\(label): untyped error \(error)")
            }
        }
        guard reached else { return nil }

        let reopened = try PageFile.open(path: path)
        let openedAt = reopened.header.generation
        #expect(expected.contains(openedAt), "\(label): reopened at \(openedAt), expected \(expected.sorted())")
        #expect(PageFileWorkload.problems(in: reopened).isEmpty, "\(label): \(PageFileWorkload.problems(in: reopened))")

        // The worst power cut: only what was synced, a failed sync making nothing after it durable.
        var model = CrashFileSystem()
        for event in trace { model.apply(event) }
        let synced = try #require(model.syncedOnlyState()["store.pages"], "\(label): the created file is not durable")
        let scratch = directory.file("synced.pages")
        try POSIXFile(path: scratch, mode: .truncate).write(synced, at: 0)
        let worst = try PageFile.open(path: scratch)
        #expect(worst.header.generation == (fault.expectedErrno == nil ? 4 : 3), "\(label): synced-only state")
        #expect(PageFileWorkload.problems(in: worst).isEmpty, "\(label): synced-only state")

        var resumed = PageFileWorkload(seed: 99, resuming: reopened)
        try resumed.checkpoint(reopened)
        #expect(PageFileWorkload.problems(in: try PageFile.open(path: path)).isEmpty, "\(label): after a new checkpoint")
        return "\(position): reopened at \(openedAt)"
    }
}
