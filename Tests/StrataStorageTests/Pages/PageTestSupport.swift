@testable import StrataStorage
import StrataSupport
import Testing

/// Runs `body`, expects a `.corruptFile` error and returns it.
func expectCorrupt(_ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) throws -> StrataError {
    try expectError(.corruptFile, body, sourceLocation: sourceLocation)
}

/// Runs `body`, expects a ``StrataError`` with `code` and returns it.
func expectError(
    _ code: StrataError.Code, _ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation
) throws -> StrataError {
    do {
        try body()
    } catch let error as StrataError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        return error
    }
    Issue.record("expected a \(code) error; nothing was thrown", sourceLocation: sourceLocation)
    return StrataError(code, "(not thrown)")
}

/// `image` with its frame checksum recomputed, to craft a page whose other fields are wrong.
func resealed(_ image: [UInt8]) -> [UInt8] {
    var bytes = image
    let checksum = bytes.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[4...])) }
    withUnsafeBytes(of: checksum.littleEndian) { raw in
        for index in 0..<4 { bytes[index] = raw[index] }
    }
    return bytes
}

/// A transform for tests that XORs every byte but the reserved tail with its page number and
/// fills the tail with a marker: proves that pages pass through the seam (the disk bytes are
/// not the image) and that the tail is left to the transform.
struct XorPageTransform: PageTransform {
    var identifier: UInt32 { 7 }
    var reservedBytes: Int { 16 }

    func encode(_ page: inout [UInt8], pageNumber: UInt64) {
        let key = UInt8(truncatingIfNeeded: pageNumber) | 0x80
        for index in 0..<page.count - reservedBytes { page[index] ^= key }
        for index in page.count - reservedBytes..<page.count { page[index] = 0xEE }
    }

    func decode(_ page: inout [UInt8], pageNumber: UInt64, path: String) throws {
        guard page.suffix(reservedBytes).allSatisfy({ $0 == 0xEE }) else {
            throw StrataError(.corruptFile, "page \(pageNumber) of \(path) does not authenticate", path: path)
        }
        let key = UInt8(truncatingIfNeeded: pageNumber) | 0x80
        for index in 0..<page.count - reservedBytes { page[index] ^= key }
        for index in page.count - reservedBytes..<page.count { page[index] = 0 }
    }
}

/// Writes checkpoints of ``pagePayload(number:generation:capacity:)`` pages to a page file.
extension PageFile {
    /// Writes one checkpoint holding `pages` with their payloads for the next generation, with
    /// `pageCount` (at least past the highest page) and roots naming the generation.
    @discardableResult
    func checkpoint(pages: [UInt64], pageCount: UInt64? = nil, roots: [UInt8]? = nil) throws -> PageFileHeader {
        let generation = header.generation + 1
        let count = pageCount ?? max(header.checkpoint.pageCount, (pages.max() ?? 1) + 1)
        return try writeCheckpoint(
            pages.map { PageWrite(number: $0, kind: .treeLeaf,
                                  payload: pagePayload(number: $0, generation: generation, capacity: payloadCapacity)) },
            fields: .init(logVersion: generation * 10, firstLogSegment: generation, pageCount: count,
                          freeListRoot: generation + 100, roots: roots ?? Array("roots of \(generation)".utf8)))
    }

    /// Checks that page `number` reads back as written by `generation`.
    func expectPage(_ number: UInt64, writtenBy generation: UInt64, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let page = try read(page: number)
        #expect(page.generation == generation, "page \(number)", sourceLocation: sourceLocation)
        #expect(page.kind == .treeLeaf, sourceLocation: sourceLocation)
        #expect(page.payload == pagePayload(number: number, generation: generation, capacity: payloadCapacity),
                "page \(number)", sourceLocation: sourceLocation)
    }
}
