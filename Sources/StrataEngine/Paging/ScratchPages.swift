import StrataStorage
import StrataSupport
import Synchronization

/// Where a large write transaction moves the leaves it has filled and left behind, so that its
/// memory stays bounded (see ``SortedTree/spillFilledLeaves(_:into:)``): images appended to an
/// unnamed scratch file next to the store (``POSIXFile/scratch(in:purpose:)``), each with a CRC-32C, read
/// back when the leaf is used again.
///
/// Nothing in it is needed for durability: the commit's log record holds every change, and the
/// checkpoint after the commit writes the leaves into the page file. The file goes when the last
/// leaf image in it does (each spilled leaf holds it).
final class ScratchPages: Sendable {
    /// The scratch file.
    let file: POSIXFile
    /// The cache the leaves read back are admitted to (the store's), if any.
    weak let cache: NodeCache?
    /// Where the next image goes. Appends come from the one transaction that owns the file.
    private let end = Atomic<UInt64>(0)

    /// Where one image is, and its checksum.
    struct Image: Sendable {
        var offset: UInt64
        var length: Int
        var checksum: UInt32
    }

    /// A new scratch file in `directory`, its leaves admitted to `cache` when read back.
    ///
    /// - Throws: ``StrataError/Code/fileAccess`` when the file cannot be made.
    init(directory: String, cache: NodeCache?) throws {
        file = try POSIXFile.scratch(in: directory, purpose: "rows")
        self.cache = cache
    }

    /// Appends `bytes`; returns where they are.
    ///
    /// - Throws: ``StrataError/Code/fileAccess`` when the write fails (nothing counts then: the
    ///   next image goes to the same place).
    func append(_ bytes: [UInt8]) throws -> Image {
        let offset = end.load(ordering: .relaxed)
        try file.write(bytes, at: offset)
        end.store(offset + UInt64(bytes.count), ordering: .relaxed)
        let checksum = bytes.withUnsafeBytes { CRC32C.checksum($0) }
        return Image(offset: offset, length: bytes.count, checksum: checksum)
    }

    /// The bytes of `image`, checked.
    ///
    /// - Throws: ``StrataError/Code/fileAccess`` when the read fails, ``StrataError/Code/corruptFile``
    ///   when the bytes are not those written.
    func read(_ image: Image) throws -> [UInt8] {
        let bytes = try file.read(count: image.length, at: image.offset)
        guard bytes.count == image.length, bytes.withUnsafeBytes({ CRC32C.checksum($0) }) == image.checksum else {
            throw StrataError(.corruptFile, "the leaf a write transaction moved to its scratch file at offset "
                              + "\(image.offset) does not read back as written", path: file.path, offset: image.offset)
        }
        return bytes
    }
}
