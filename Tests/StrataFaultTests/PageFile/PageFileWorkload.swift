@testable import StrataStorage
import StrataSupport

/// A copy-on-write checkpoint sequence for page-file fault and power-loss tests, and the check
/// that a page file holds a whole generation of it.
///
/// Each checkpoint replaces a few reachable pages and adds a few, writing every new page at a
/// number the current header does not reach (a free number below the page count, else past
/// it), as the engine's checkpoints will. The header's roots list every reachable page with the
/// generation that wrote it (pairs of u32), so a file is checked against itself: any state it
/// opens at must read every page its roots name with exactly that generation's payload.
struct PageFileWorkload {
    /// The reachable pages and the generation that wrote each.
    private(set) var reachable: [UInt64: UInt64] = [:]
    private(set) var pageCount: UInt64 = 2
    private var random: SeededRandom
    /// The most pages a checkpoint reaches (keeps the checks cheap in debug builds).
    static let maximumReachable = 24

    init(seed: UInt64) { random = SeededRandom(seed: seed) }

    /// A workload that continues from `file`'s current header (its roots and page count).
    init(seed: UInt64, resuming file: PageFile) {
        random = SeededRandom(seed: seed)
        reachable = Dictionary(uniqueKeysWithValues: Self.roots(of: file.header).map { ($0.page, $0.generation) })
        pageCount = file.header.checkpoint.pageCount
    }

    /// The pages `header`'s roots name, with the generation that wrote each.
    static func roots(of header: PageFileHeader) -> [(page: UInt64, generation: UInt64)] {
        let roots = header.checkpoint.roots
        return stride(from: 0, to: roots.count - roots.count % 8, by: 8).map { index in
            roots[index..<index + 8].withUnsafeBytes {
                (UInt64(UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self))),
                 UInt64(UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: 4, as: UInt32.self))))
            }
        }
    }

    /// Writes the next checkpoint to `file`; `grow` puts its pages past the current page count and
    /// one page more, which it leaves unwritten (so the checkpoint extends the file).
    @discardableResult
    mutating func checkpoint(_ file: PageFile, grow: Bool = false) throws -> PageFileHeader {
        let generation = file.header.generation + 1
        var free = (2..<pageCount).filter { reachable[$0] == nil }
        free.shuffle(using: &random)
        var replaced = Array(reachable.keys).sorted()
        replaced.shuffle(using: &random)
        replaced = Array(replaced.prefix(Int(random.next() % 3)))
        var next = reachable
        for page in replaced { next[page] = nil }
        var count = pageCount
        var written: [UInt64] = []
        for _ in 0..<replaced.count + 1 + Int(random.next() % 3) where next.count < Self.maximumReachable {
            let number: UInt64
            if !grow, let reused = free.popLast() { number = reused } else {
                number = count
                count += 1
            }
            written.append(number)
            next[number] = generation
        }
        // Growing also leaves a page unwritten past the last one, so the file must be extended.
        if grow { count += 1 }
        var roots = ByteWriter(capacity: next.count * 8)
        for (page, writtenBy) in next.sorted(by: { $0.key < $1.key }) {
            roots.writeFixed(UInt32(page))
            roots.writeFixed(UInt32(writtenBy))
        }
        let header = try file.writeCheckpoint(
            written.map {
                .init(number: $0, kind: .treeLeaf,
                      payload: pagePayload(number: $0, generation: generation, capacity: file.payloadCapacity))
            },
            fields: .init(logVersion: generation * 10, firstLogSegment: generation, pageCount: count, roots: roots.bytes))
        reachable = next
        pageCount = count
        return header
    }

    /// The problems with `file` at its current header: every page its roots name must read back
    /// with the payload of the generation the roots give. Empty when the file is whole.
    static func problems(in file: PageFile) -> [String] {
        let header = file.header
        var problems: [String] = []
        if header.checkpoint.logVersion != header.generation * 10 {
            problems.append("generation \(header.generation) has log version \(header.checkpoint.logVersion)")
        }
        guard header.checkpoint.roots.count % 8 == 0 else {
            return problems + ["roots of \(header.checkpoint.roots.count) bytes"]
        }
        for page in roots(of: header) {
            do {
                let read = try file.read(page: page.0)
                if read.generation != page.1
                    || read.payload != pagePayload(number: page.0, generation: page.1, capacity: file.payloadCapacity) {
                    problems.append("page \(page.0) is not generation \(page.1)'s (read generation \(read.generation))")
                }
            } catch {
                problems.append("page \(page.0): \(error)")
            }
        }
        return problems
    }
}
