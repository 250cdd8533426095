import StrataSupport

/// The state of a ``PageFile`` at one checkpoint, as one of its two header slots records it.
///
/// Pages 0 and 1 are the header slots (as LMDB's meta pages): generation `g` lives in slot
/// `g % 2`, so a checkpoint writes the slot the current header is not in and the current one
/// stays intact until the new one is durable. Each slot is a whole page framed as every page is
/// (see ``PageFrame``: CRC-32C, kind 1 = ``PageKind/headerSlot``, page number 0 or 1, the
/// generation, the payload length) and never transformed (see ``PageTransform``). Its payload:
///
/// ```
/// page offset 32  8 bytes magic "STRATAPG"
///             40  u32 file-format version (2; version 1 files, whose pages never hold leaf
///                     deltas, are read as they are and become version 2 at their next checkpoint)
///             44  u32 page size in bytes (a power of two, 4096 ... 65536)
///             48  u64 store identity (random, chosen at creation; the commit log's segments
///                     carry the same value)
///             56  u64 log version: the version of the snapshot the checkpoint holds
///             64  u64 first log segment: the sequence number of the segment that continues it
///             72  u64 page count: pages 0 ..< count make up the file (it may be longer)
///             80  u64 free-list root page number (0: none; opaque to the page file)
///             88  u32 page transform code (0: none; see PageTransform)
///             92  u32 roots length, at most 1024
///             96  roots: an opaque blob the engine fills (catalog root page numbers and such)
///                 zeros to the end of the page
/// ```
/// The generation is the frame's (page offset 16). Integers are little-endian. A file is a
/// Strata page file when one of its slots carries the magic at page offset 32; see
/// ``PageFileHeader/current(in:fileSize:path:)`` for how a slot is chosen.
package struct PageFileHeader: Sendable, Equatable {
    /// The magic at page offset 32 of a header slot.
    static let magic: [UInt8] = Array("STRATAPG".utf8)
    /// The file-format version this code writes. Version 2 added ``PageKind/leafDeltas`` and
    /// ``PageKind/deltaDirectory`` pages: a version 1 reader would read a leaf's page without its
    /// delta, so it must refuse a version 2 file rather than read it.
    package static let formatVersion: UInt32 = 2
    /// The file-format versions this code reads: every version 1 file is a valid version 2 file.
    package static let readableFormatVersions: ClosedRange<UInt32> = 1...2
    /// The largest roots blob a header holds.
    package static let maximumRootsSize = 1024
    /// The offset of the magic in a slot page (right after the frame).
    static let magicOffset = PageFrame.headerSize
    /// The size of the slot fields before the roots blob.
    static let fieldsSize = 64

    /// The checkpoint generation: 0 at creation, one more per checkpoint.
    package var generation: UInt64
    /// The page size of the file.
    package var pageSize: Int
    /// The store identity.
    package var storeID: UInt64
    /// What the engine needs to continue from this checkpoint, set by each checkpoint.
    package var checkpoint: CheckpointFields
    /// The code of the ``PageTransform`` the file's pages were written with.
    package var transformID: UInt32

    /// The slot (page number) this generation lives in.
    package var slot: UInt64 { generation % 2 }

    /// The header fields a checkpoint sets (see ``PageFile/writeCheckpoint(_:fields:)``).
    package struct CheckpointFields: Sendable, Equatable {
        /// The log version of the snapshot the checkpoint holds.
        package var logVersion: UInt64
        /// The sequence number of the first log segment the checkpoint needs.
        package var firstLogSegment: UInt64
        /// The number of pages the checkpoint's file uses (at least 2).
        package var pageCount: UInt64
        /// The root page of the free list (opaque to the page file).
        package var freeListRoot: UInt64
        /// The engine's roots, at most ``PageFileHeader/maximumRootsSize`` bytes.
        package var roots: [UInt8]

        /// Creates checkpoint fields.
        package init(logVersion: UInt64, firstLogSegment: UInt64, pageCount: UInt64, freeListRoot: UInt64 = 0,
                     roots: [UInt8] = []) {
            self.logVersion = logVersion
            self.firstLogSegment = firstLogSegment
            self.pageCount = pageCount
            self.freeListRoot = freeListRoot
            self.roots = roots
        }
    }

    /// The image of this header's slot page.
    func encodeSlot() -> [UInt8] {
        var writer = ByteWriter(capacity: Self.fieldsSize + checkpoint.roots.count)
        writer.writeRaw(Self.magic)
        writer.writeFixed(Self.formatVersion)
        writer.writeFixed(UInt32(pageSize))
        writer.writeFixed(storeID)
        writer.writeFixed(checkpoint.logVersion)
        writer.writeFixed(checkpoint.firstLogSegment)
        writer.writeFixed(checkpoint.pageCount)
        writer.writeFixed(checkpoint.freeListRoot)
        writer.writeFixed(transformID)
        writer.writeFixed(UInt32(checkpoint.roots.count))
        writer.writeRaw(checkpoint.roots)
        return PageFrame.encode(kind: .headerSlot, number: slot, generation: generation, payload: writer.bytes,
                                pageSize: pageSize)
    }

    /// What one slot holds.
    enum Slot {
        /// No magic: not a header slot at all.
        case absent
        /// The magic, but the slot does not decode (torn, damaged, unwritten): why.
        case damaged(String)
        /// A slot that checks out but was written in another file-format version.
        case unknownVersion(UInt32)
        /// A valid slot.
        case valid(PageFileHeader)
    }

    /// Decodes slot `number` (0 or 1) from `bytes`, the start of a file, at the page size the slot
    /// names.
    ///
    /// - Parameter pageSize: for slot 1, the page size slot 0 gave, if it is valid; else every
    ///   page size is tried (slot 1 sits at offset pageSize).
    static func decodeSlot(_ number: UInt64, in bytes: [UInt8], pageSize: Int? = nil, path: String) -> Slot {
        let candidates = number == 0 ? [0] : pageSize.map { [$0] } ?? Array(sequence(first: PageFrame.minimumPageSize) {
            $0 < PageFrame.maximumPageSize ? $0 * 2 : nil
        })
        var found: Slot = .absent
        for start in candidates {
            let slot = decodeSlot(number, at: start, in: bytes, path: path)
            switch slot {
            case .absent: continue
            case .damaged: if case .absent = found { found = slot }
            case .valid, .unknownVersion: return slot
            }
        }
        return found
    }

    private static func decodeSlot(_ number: UInt64, at start: Int, in bytes: [UInt8], path: String) -> Slot {
        let fields = start + magicOffset
        guard bytes.count >= fields + Self.fieldsSize, Array(bytes[fields..<fields + 8]) == magic else { return .absent }
        func field<T: FixedWidthInteger>(_ offset: Int, _: T.Type) -> T {
            bytes.withUnsafeBytes { T(littleEndian: $0.loadUnaligned(fromByteOffset: fields + offset, as: T.self)) }
        }
        let pageSize = Int(field(12, UInt32.self))
        guard PageFrame.isValidPageSize(pageSize) else { return .damaged("page size \(pageSize) is invalid") }
        guard number == 0 || start == pageSize else { return .absent }
        guard bytes.count >= start + pageSize else { return .damaged("the slot is truncated") }
        let frame: PageFrame.Decoded
        do {
            frame = try PageFrame.decode(Array(bytes[start..<start + pageSize]), number: number, pageSize: pageSize,
                                         path: path)
        } catch {
            return .damaged((error as? StrataError)?.message ?? "\(error)")
        }
        let version = field(8, UInt32.self)
        guard readableFormatVersions.contains(version) else { return .unknownVersion(version) }
        let rootsLength = Int(field(60, UInt32.self))
        guard frame.kind == .headerSlot, rootsLength <= maximumRootsSize,
              frame.payload.count == Self.fieldsSize + rootsLength
        else { return .damaged("the slot's fields are inconsistent") }
        let checkpoint = CheckpointFields(
            logVersion: field(24, UInt64.self), firstLogSegment: field(32, UInt64.self),
            pageCount: field(40, UInt64.self), freeListRoot: field(48, UInt64.self),
            roots: Array(frame.payload[Self.fieldsSize...]))
        guard checkpoint.pageCount >= 2 else { return .damaged("page count \(checkpoint.pageCount)") }
        return .valid(PageFileHeader(generation: frame.generation, pageSize: pageSize, storeID: field(16, UInt64.self),
                                     checkpoint: checkpoint, transformID: field(56, UInt32.self)))
    }
}
