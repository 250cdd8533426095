@testable import StrataEngine
@testable import StrataStorage
import StrataSupport
import Testing

/// Injects each kind of I/O fault (see ``FaultCase``) at each position of a commit, of a
/// checkpoint, of a compaction, of opening a store whose log has a torn tail (then
/// committing once), and of the checkpoint a store runs when its last user lets go (which
/// throws nothing: its failure must be recorded), in turn: the first operation of the kind, the second, … until the work no
/// longer reaches the fault.
///
/// At every position: the commit, checkpoint or compaction reports the fault as a typed error
/// carrying its errno (a short write the loop finishes is no error); a later commit on the same
/// store is either refused or durable, and after a compaction a later checkpoint (which trims
/// the log) must not take away what the file at the store's path needs; a commit on the store
/// reopened after the fault is cleared is refused or durable;
/// the synced-only state of the directory after all that (what the worst power cut would leave,
/// a failed fdatasync counting as lost data; see ``CrashFileSystem``) opens and holds every
/// commit acknowledged as durable; and the store reopens with every acknowledged commit, no
/// partial transaction, and takes new commits.
@Suite("I/O fault sweep")
struct FaultSweepTests {
    /// The work the fault is injected into.
    enum Phase: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case commitFull, commitNormal, checkpointFull, checkpointNormal, compaction, recovery
        /// The checkpoint a store runs when its last user lets go (see `Store.checkpointOnRelease()`).
        case release

        var durability: Durability { self == .commitNormal || self == .checkpointNormal ? .normal : .full }
        /// Whether the store is checkpointed once before the fault, so that the faulted work has a
        /// checkpoint to replace and a log segment to remove.
        var startsCheckpointed: Bool { self == .checkpointFull || self == .checkpointNormal || self == .compaction }
        var testDescription: String { rawValue }
    }

    @Test("each fault at each position of a commit or a checkpoint gives a typed error, acknowledges only durable commits, and the store reopens with every acknowledged commit",
          arguments: FaultCase.all, Phase.allCases)
    func sweep(_ fault: FaultCase, _ phase: Phase) throws {
        var outcomes: [String] = []
        while outcomes.count < 64, let outcome = try FaultSweep.run(fault, phase, position: outcomes.count) {
            outcomes.append(outcome)
        }
        print("fault sweep [\(fault.name), \(phase)]: \(outcomes.count) positions: \(outcomes.joined(separator: ", "))")
        let reachable = switch phase {
        case .commitFull: [.write, .sync].contains(fault.operation)
        case .commitNormal: fault.operation == .write
        // A checkpoint writes the page file in place: it renames nothing.
        case .checkpointFull, .checkpointNormal: ![.truncate, .rename].contains(fault.operation)
        case .compaction: true
        case .recovery: [.open, .write, .sync, .truncate].contains(fault.operation)
        case .release: ![.truncate, .rename].contains(fault.operation)
        }
        if reachable { #expect(!outcomes.isEmpty, "the fault was never reached") }
    }
}

/// One run of the sweep.
enum FaultSweep {
    /// Injects `fault` at the `position`-th matching operation of `phase`; returns a one-line
    /// outcome, or nil when the phase has fewer such operations.
    static func run(_ fault: FaultCase, _ phase: FaultSweepTests.Phase, position: Int) throws -> String? {
        let directory = try TemporaryDirectory.create(prefix: "strata-fault")
        defer {
            StorageFaults.shared.removeRules(matching: directory.name)
            directory.remove()
        }
        var configuration = StoreConfiguration.file(directory.file("store.strata"), durability: phase.durability)
        if phase == .recovery {
            // Recovery proper: the open replays the log the setup left (no release checkpoint
            // empties it), and a fault is the open's (no checkpoint after the replay absorbs it).
            configuration.checkpointsOnRelease = false
            configuration.checkpointsAfterReplay = false
        }
        let label = "[\(fault.name), \(phase), position \(position)]"
        var acknowledged: Set<Int64> = []
        var reached = true
        var outcome = ""

        let trace = try IOTraceRecorder.record(directory: directory.path) { recorder in
            func commit(_ id: Int64, to store: Store) throws {
                try Ledger.commit(id, to: store)
                acknowledged.insert(id)
                recorder.acknowledge(id)
            }
            // Inside the trace, so the synced-only check below covers what a reopened store
            // acknowledges on top of the faulted work.
            func reopenAndCommit() throws {
                do {
                    try withReleasedStore(configuration) { store in try commit(201, to: store) }
                    outcome += ", reopened and committed"
                } catch let error as StrataError {
                    outcome += ", reopen and commit \(error.code)"
                }
            }
            try withReleasedStore(configuration) { store in
                try Ledger.createTables(in: store)
                acknowledged.insert(Ledger.schemaCommit)
                recorder.acknowledge(Ledger.schemaCommit)
                for id: Int64 in 1...3 { try commit(id, to: store) }
                if phase.startsCheckpointed {
                    // A checkpoint to replace and a log segment for the next one to remove.
                    try store.checkpoint()
                    try commit(4, to: store)
                }
                guard phase != .recovery else { return }
                if phase == .release {
                    // The store is released as this returns: its release checkpoint meets the fault.
                    StorageFaults.shared.inject(fault.fault, on: fault.operation, matching: directory.name,
                                                skipping: position)
                    return
                }

                StorageFaults.shared.inject(fault.fault, on: fault.operation, matching: directory.name,
                                            skipping: position)
                let result = Result {
                    switch phase {
                    case .compaction: try store.compact()
                    case .checkpointFull, .checkpointNormal: try store.checkpoint()
                    default: try commit(100, to: store)
                    }
                }
                guard !StorageFaults.shared.isArmed(matching: directory.name) else {
                    reached = false
                    return
                }
                StorageFaults.shared.removeRules(matching: directory.name)
                outcome = "\(position): " + check(result, expected: fault.expectedErrno, label)

                // The fault is gone: a later commit is refused or acknowledged (then it must be durable).
                do {
                    try commit(200, to: store)
                    outcome += ", later commit acknowledged"
                } catch let error as StrataError {
                    outcome += ", later commit \(error.code)"
                }
                // A checkpoint after a failed compaction trims the log up to what it covers: that
                // must not be what the file at the store's path still needs.
                if phase == .compaction {
                    do {
                        try store.checkpoint()
                        outcome += ", later checkpoint done"
                    } catch let error as StrataError {
                        outcome += ", later checkpoint \(error.code)"
                    }
                }
            }
            if phase == .release {
                guard !StorageFaults.shared.isArmed(matching: directory.name) else {
                    reached = false
                    return
                }
                StorageFaults.shared.removeRules(matching: directory.name)
                // A release never throws: a failure is recorded, and the log keeps what it did not write.
                let recorded = StoreRegistry.shared.lastReleaseCheckpointError(at: configuration.location)
                outcome = "\(position): " + (recorded == nil ? "release checkpoint done" : "release checkpoint failed")
                if fault.expectedErrno != nil {
                    #expect(recorded != nil, "\(label) the release checkpoint's failure was not recorded")
                }
                try reopenAndCommit()
                return
            }
            if phase != .recovery {
                guard reached else { return }
                try reopenAndCommit()
                return
            }

            // A torn tail for recovery to cut: half a record header, never synced.
            let segment = try #require(try CommitLog.segmentPaths(storePath: directory.file("store.strata")).last)
            let file = try POSIXFile(path: segment, mode: .readWriteCreate)
            try file.write([UInt8](repeating: 0x5A, count: LogRecord.headerSize / 2), at: try file.size())

            StorageFaults.shared.inject(fault.fault, on: fault.operation, matching: directory.name, skipping: position)
            let result = Result { try withReleasedStore(configuration) { store in try commit(100, to: store) } }
            guard !StorageFaults.shared.isArmed(matching: directory.name) else {
                reached = false
                return
            }
            StorageFaults.shared.removeRules(matching: directory.name)
            outcome = "\(position): " + check(result, expected: fault.expectedErrno, label)
            try reopenAndCommit()
        }
        guard reached else { return nil }

        // The worst power cut now must keep every commit acknowledged as durable.
        var model = CrashFileSystem()
        for event in trace { model.apply(event) }
        let durable = DurabilityTimeline(trace: trace, durability: phase.durability).commits(before: trace.count)
        switch try CrashStateCheck.run(files: model.syncedOnlyState(), durability: phase.durability, durable: durable,
                                       reopen: false) {
        case .refused(let error):
            let failedSyncs = trace.filter { if case .syncFailed = $0 { true } else { false } }.count
            let note = failedSyncs == 0 ? "" : " (after \(failedSyncs) failed fdatasync: what it was to make durable "
                + "may be gone from the disk while the page cache still shows it to a reopened store)"
            Issue.record("\(label) the synced-only state does not open: \(error)\(note)")
        case .opened(let found):
            #expect(found.lost.isEmpty, "\(label) acknowledged durable commits lost to a power cut: \(found.lost.sorted())")
            #expect(found.problems.isEmpty, "\(label) \(found.problems)")
        }

        // Reopened as it is (a process restart): every acknowledged commit, nothing partial, writable.
        try withReleasedStore(configuration) { store in
            let contents = Ledger.contents(of: store.currentSnapshot)
            #expect(acknowledged.isSubset(of: contents.commits),
                    "\(label) reopened without acknowledged commits \(acknowledged.subtracting(contents.commits).sorted())")
            #expect(contents.problems.isEmpty, "\(label) \(contents.problems)")
            try Ledger.commit(300, to: store)
        }
        try withReleasedStore(configuration) { store in
            #expect(Ledger.contents(of: store.currentSnapshot).commits.contains(300), "\(label) commit after reopening")
        }
        return outcome
    }

    /// Checks the result of the faulted work and describes it.
    private static func check(_ result: Result<Void, any Error>, expected: Int32?, _ label: String) -> String {
        switch (result, expected) {
        case (.success, nil):
            return "succeeded"
        case (.success, let code?):
            Issue.record("\(label) the work succeeded although errno \(code) was injected")
            return "succeeded (wrong)"
        case (.failure(let error), let code):
            guard let error = error as? StrataError else {
                Issue.record("\(label) untyped error \(error)")
                return "untyped error"
            }
            #expect(code != nil, "\(label) the work failed although the fault was harmless: \(error)")
            #expect([.fileAccess, .poisoned, .logRotationFailed].contains(error.code), "\(label) \(error)")
            #expect(error.errno == code, "\(label) the error does not carry the injected errno: \(error)")
            return "\(error.code)"
        }
    }
}

/// Opens the store, runs `body` with it, drops it and checks that it was released (so the next
/// open of the path really reopens the files; the tests that use it never start a background
/// checkpoint).
func withReleasedStore<R>(_ configuration: StoreConfiguration, _ body: (Store) throws -> R) throws -> R {
    let reference = WeakStore()
    let result: R
    do {
        let store = try Store.open(configuration)
        reference.store = store
        result = try body(store)
    }
    let released = waitUntil(timeout: 20) { reference.store == nil }
    #expect(released, "the store was not released")
    return result
}
