import StrataSupport
import Synchronization

/// A file of fixed-size pages with two header slots: the bottom layer of the paged store.
///
/// Page `n` is the `pageSize` bytes at offset `n × pageSize`; pages 0 and 1 are the header slots
/// (see ``PageFileHeader``), every other page is framed as ``PageFrame`` describes and passes
/// through the file's ``PageTransform``. The file is the state of its current header: the
/// pages that header's checkpoint reaches. A checkpoint (``writeCheckpoint(_:fields:)``) writes
/// new pages where the current header reaches nothing, syncs, then writes the other slot and
/// syncs again; so a crash at any point opens at the previous checkpoint or the new one, each
/// with all its pages intact.
///
/// Reads go through a ``PageCache`` bounded by bytes and may run on many threads at once,
/// also while a checkpoint runs; checkpoints run one at a time. Every read, write and sync goes
/// through ``POSIXFile``, the seam fault injection and the power-loss tracer see.
///
/// A failed write or sync of a header slot, or the sync after it, poisons the file (as the commit
/// log's failed sync does; see ``SyncPoison``): every later checkpoint throws
/// ``StrataError/Code/poisoned`` until the file is reopened, and the header of the last
/// checkpoint that returned stays current. A failure before the slot is written only fails that
/// checkpoint: no header reaches the pages it wrote.
///
/// The page file takes no file lock: the store that owns it locks it, as it locks its log.
package final class PageFile: Sendable {
    /// How to open a page file.
    package struct Options: Sendable {
        /// The bytes the page cache may hold (default 256 MiB).
        package var cacheBytes: Int
        /// The transform between page images and disk bytes (default: none).
        package var transform: any PageTransform
        /// Whether to open for reading only (checkpoints then throw ``StrataError/Code/readOnly``).
        package var readOnly: Bool

        /// Creates options.
        package init(cacheBytes: Int = 256 << 20, transform: any PageTransform = IdentityPageTransform(),
                     readOnly: Bool = false) {
            self.cacheBytes = cacheBytes
            self.transform = transform
            self.readOnly = readOnly
        }
    }

    /// The path of the file.
    package let path: String
    /// The size of every page.
    package let pageSize: Int
    /// The page cache.
    package let cache: PageCache
    let file: POSIXFile
    let transform: any PageTransform
    let readOnly: Bool
    /// The current header: the last checkpoint written (or the one the file opened at).
    let current: LockedValueBox<PageFileHeader>
    /// The header slot the open passed over because it does not check out, if any (see
    /// ``PageFileHeader/choose(in:fileSize:path:)``): a slot torn by a crash while its checkpoint
    /// was written, or the current header damaged since, which the file opened past, at the
    /// previous checkpoint. The store tells the two apart by the log: a checkpoint deletes the
    /// log segments the previous one needs only once its header is durable.
    package let skippedSlot: PageFileHeader.SkippedSlot?
    /// Held for the whole of one checkpoint.
    let writing = LockedValueBox(())
    /// The first failed write or sync.
    let poison = SyncPoison(failedOperation: "an earlier write or sync of the page file")

    /// Poisons the file with `failure` as a failed sync would: every later checkpoint throws
    /// ``StrataError/Code/poisoned`` until the file is reopened. A store whose compaction renamed
    /// a new file over this one and then failed calls it: the file at the store's path is the new
    /// one or (after a power cut) this one, so no later checkpoint of this one may trim the log
    /// either needs.
    package func poison(with failure: StrataError) {
        poison.record(failure)
    }

    /// A number no other page file opened by this process has: what a page number is a page of
    /// (a compaction replaces the file, and page numbers of the old one mean nothing in the new).
    package let identity: UInt64 = PageFile.identities.wrappingAdd(1, ordering: .relaxed).newValue
    private static let identities = Atomic<UInt64>(0)

    private init(file: POSIXFile, header: PageFileHeader, skippedSlot: PageFileHeader.SkippedSlot?, options: Options) {
        path = file.path
        self.skippedSlot = skippedSlot
        pageSize = header.pageSize
        self.file = file
        transform = options.transform
        readOnly = options.readOnly
        current = LockedValueBox(header)
        cache = PageCache(capacityBytes: options.cacheBytes, pageSize: header.pageSize)
    }

    /// The most payload one page holds.
    package var payloadCapacity: Int {
        PageFrame.payloadCapacity(pageSize: pageSize, reserved: transform.reservedBytes)
    }

    /// The current header.
    package var header: PageFileHeader { current.withLockedValue { $0 } }

    /// Creates a page file at `path` holding generation 0 (no pages besides the slots) and opens it.
    ///
    /// See ``writeNewFile(path:pageSize:storeID:checkpoint:pages:replacing:transform:)``.
    package static func create(
        path: String, pageSize: Int = PageFrame.defaultPageSize, storeID: UInt64,
        checkpoint: PageFileHeader.CheckpointFields = .init(logVersion: 0, firstLogSegment: 0, pageCount: 2),
        options: Options = Options()
    ) throws -> PageFile {
        var fields = checkpoint
        fields.pageCount = 2
        try writeNewFile(path: path, pageSize: pageSize, storeID: storeID, checkpoint: fields, pages: [],
                         transform: options.transform)
        return try open(path: path, options: options)
    }

    /// Writes a new page file at `path` whose generation 0 holds `pages` and `checkpoint` (which
    /// gives the page count), without opening it.
    ///
    /// The file is written to `<path>.tmp`, synced once and renamed into place with its directory
    /// synced, so `path` holds either what it held before or the whole new file.
    ///
    /// - Parameter replacing: whether a file at `path` may be replaced (else it is refused).
    /// - Throws: ``StrataError/Code/invalidInput`` when the page size is not a power of two from
    ///   4 KiB to 64 KiB, the transform reserves more than 256 bytes, a page is invalid (see
    ///   ``writeCheckpoint(_:fields:)``), or a file exists at `path` and `replacing` is false;
    ///   ``StrataError/Code/fileAccess`` when writing fails (the `.tmp` is then removed).
    package static func writeNewFile(
        path: String, pageSize: Int = PageFrame.defaultPageSize, storeID: UInt64,
        checkpoint fields: PageFileHeader.CheckpointFields, pages: [PageWrite], replacing: Bool = false,
        transform: any PageTransform = IdentityPageTransform()
    ) throws {
        let newFile = try NewFile(path: path, pageSize: pageSize, storeID: storeID, replacing: replacing,
                                  transform: transform)
        do {
            try validate(fields, pageSize: pageSize, path: path)
            _ = try checkedOrder(pages, pageCount: fields.pageCount, pageSize: pageSize, transform: transform,
                                 path: path)
            try newFile.write(pages)
            try newFile.finish(checkpoint: fields)
        } catch {
            newFile.abandon()
            throw error
        }
    }

    /// Opens the page file at `path` at its current header.
    ///
    /// Reads only the two header slots: O(1) in the size of the file.
    ///
    /// - Throws: ``StrataError/Code/fileNotFound``; ``StrataError/Code/invalidFileFormat`` when
    ///   the file is not a Strata page file, was written in another format version, or with
    ///   another page transform; ``StrataError/Code/corruptFile`` when both header slots are
    ///   damaged or the file is shorter than its header says (see
    ///   ``PageFileHeader/current(in:fileSize:path:)``).
    package static func open(path: String, options: Options = Options()) throws -> PageFile {
        try open(file: POSIXFile(path: path, mode: options.readOnly ? .readOnly : .readWrite), options: options)
    }

    /// Opens the page file `file` (opened read-write, or read-only when `options.readOnly`) at its
    /// current header, keeping the descriptor (and the locks the caller took on it).
    ///
    /// - Throws: as ``open(path:options:)``.
    package static func open(file: POSIXFile, options: Options = Options()) throws -> PageFile {
        let path = file.path
        let size = try file.size()
        let start = try file.read(count: Int(min(size, UInt64(PageFileHeader.slotsSpan))), at: 0)
        let (header, skipped) = try PageFileHeader.choose(in: start, fileSize: size, path: path)
        guard header.transformID == options.transform.identifier else {
            throw StrataError(.invalidFileFormat,
                              "\(path) was written with page transform \(header.transformID) (0: none); it "
                                  + "was opened with transform \(options.transform.identifier)",
                              path: path)
        }
        return PageFile(file: file, header: header, skippedSlot: skipped, options: options)
    }

    /// Checks the fields a checkpoint would write, before anything is written.
    static func validate(_ fields: PageFileHeader.CheckpointFields, pageSize: Int, path: String) throws {
        guard fields.roots.count <= PageFileHeader.maximumRootsSize else {
            throw StrataError(.invalidInput,
                              "a page file header holds at most \(PageFileHeader.maximumRootsSize) bytes of roots, "
                                  + "not \(fields.roots.count)", path: path)
        }
        let limit = UInt64(Int64.max) / UInt64(pageSize)
        guard fields.pageCount >= 2, fields.pageCount <= limit else {
            throw StrataError(.invalidInput, "a page count of \(fields.pageCount) is out of range", path: path)
        }
    }
}
