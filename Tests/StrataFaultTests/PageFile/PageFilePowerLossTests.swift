import Foundation
@testable import StrataStorage
import StrataSupport
import Testing

/// Power-loss simulation of page-file checkpoints: a page file is created and takes a series of
/// checkpoints (see ``PageFileWorkload``) while every file operation is traced; crash states
/// are built from the trace at random points (see ``CrashFileSystem``: unsynced 4 KiB pages kept
/// or lost, one torn at a sector boundary, the file at its old or new length) and opened.
///
/// Pass: every state that holds the file opens at some generation g at least the last one
/// whose checkpoint returned before the crash, and every page g's roots name reads back whole
/// with g's payload. The file may be absent only before its creation returned.
///
/// `STRATA_PAGEFILE_POWERLOSS_STATES` sets the number of states per page size (default 200, the
/// CI figure; 5,000 is the long mode). `STRATA_SEED` replays a run: the workload is one thread,
/// so the seed fixes the trace as well as the crash points.
@Suite("Page file power loss")
struct PageFilePowerLossTests {
    @Test("every crash state during checkpoints opens at a generation at least the last returned, with all its pages",
          arguments: [4096, 16384])
    func crashStatesOpen(pageSize: Int) throws {
        let seed = SeededRandom.seedFromEnvironment()
        let states = longModeCount("STRATA_PAGEFILE_POWERLOSS_STATES", standard: 200)
        print("page file power loss (\(pageSize)-byte pages): STRATA_SEED=\(seed), \(states) states")
        let directory = try TemporaryDirectory.create(prefix: "strata-pageloss", in: TemporaryDirectory.memoryBackedParent)
        defer { directory.remove() }

        var workload = PageFileWorkload(seed: seed)
        let trace = try IOTraceRecorder.record(directory: directory.path) { recorder in
            let file = try PageFile.create(path: directory.file("store.pages"), pageSize: pageSize, storeID: 5)
            recorder.acknowledge(0)
            for index in 1...12 {
                let header = try workload.checkpoint(file, grow: index % 5 == 0)
                recorder.acknowledge(Int64(header.generation))
            }
        }

        var random = SeededRandom(seed: seed ^ UInt64(pageSize))
        var failures: [String] = []
        var openedAt: [UInt64: Int] = [:]
        var (fellBack, absent, inSwitch) = (0, 0, 0)
        let scratch = directory.file("crash.pages")
        // The crash points in order, so the model is fed the trace once.
        let points = (0..<states).map { _ in Int(random.next() % UInt64(trace.count + 1)) }.sorted()
        var model = CrashFileSystem()
        var returned: UInt64?
        var slotsWritten = 0
        var slotPending = false
        for (state, point) in points.enumerated() {
            while model.position < point {
                let event = trace[model.position]
                model.apply(event)
                switch event {
                case .acknowledged(let generation): returned = UInt64(generation)
                case .wrote("store.pages", let offset, _) where offset < UInt64(2 * pageSize):
                    slotsWritten += 1
                    slotPending = true
                case .syncFinished("store.pages"): slotPending = false
                default: break
                }
            }
            let written = slotsWritten
            if slotPending { inSwitch += 1 }
            let (files, description) = model.crashState(using: &random)
            let label = "state \(state) (event \(point) of \(trace.count); \(description))"
            guard let bytes = files["store.pages"] else {
                absent += 1
                if let returned { failures.append("\(label): the file is gone after generation \(returned) returned") }
                continue
            }
            do {
                try POSIXFile(path: scratch, mode: .truncate).write(bytes, at: 0)
                let file = try PageFile.open(path: scratch)
                let generation = file.header.generation
                openedAt[generation, default: 0] += 1
                if generation < written { fellBack += 1 }
                if let returned, generation < returned {
                    failures.append("\(label): opened at generation \(generation), \(returned) had returned")
                }
                let problems = PageFileWorkload.problems(in: file)
                if !problems.isEmpty { failures.append("\(label): generation \(generation): \(problems.prefix(3))") }
            } catch {
                failures.append("\(label): \(error)")
            }
        }
        print("page file power loss (\(pageSize)): \(trace.count) events, \(states) states, absent \(absent), "
              + "between a slot write and its sync: \(inSwitch), "
              + "opened at the newest slot written: \(states - absent - fellBack), at an older one: \(fellBack), "
              + "generations \(openedAt.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: " "))")
        for failure in failures.prefix(5) { print("page file power loss failure (STRATA_SEED=\(seed)): \(failure)") }
        #expect(failures.isEmpty, "\(failures.count) failing states; first: \(failures.first ?? "")")
        #expect(inSwitch > 0, "no crash between a header slot write and its sync: the simulation missed the switch")
    }
}
