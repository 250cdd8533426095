import StrataSupport

/// The checkpoint (format 2): one file holding a whole snapshot at one version, and saying where
/// the commit log continues it.
///
/// ```
/// offset 0  8 bytes magic "STRATACK"
///        8  u32 format version (2)
///       12  u32 reserved (0)
///       16  u64 snapshot version
///       24  u64 store identity (random, chosen when the store was created; every log
///               segment of the store carries the same value)
///       32  u64 first log segment: the sequence number of the segment whose records follow
///               the snapshot (its base version is the snapshot version)
///       40  u64 payload length
///       48  u32 CRC-32C of the payload
///       52  u32 CRC-32C of bytes 0..<52
///       56  payload (the engine's snapshot encoding)
/// ```
/// A new checkpoint is written to `<path>.tmp`, synced, and renamed over `<path>` with the
/// directory synced, so the file at `<path>` is always a complete checkpoint. The log segment it
/// names is created (and synced) before it is written; older segments are deleted after the
/// rename. A `.tmp` that a crash or a failed write leaves behind is never read: a failed
/// ``write(path:header:payload:locked:)`` removes it, and opening a store read-write removes it.
///
/// The open store holds an exclusive POSIX lock on the checkpoint file: the lock is taken on
/// the `.tmp` descriptor before the rename, so the file at `<path>` is locked from the moment it
/// appears. Format 1 checkpoints (40-byte header, without identity or segment) are not read by
/// ``read(path:)`` (``StrataError/Code/invalidFileFormat``); the engine upgrades a format 1 store
/// on its first read-write open (see ``FormatOneStore``).
package enum CheckpointFile {
    static let magic: [UInt8] = Array("STRATACK".utf8)
    static let formatVersion: UInt32 = 2
    /// The size of the checkpoint header; the payload starts at this offset.
    package static let headerSize = 56

    /// The fields of a checkpoint besides its payload.
    package struct Header: Sendable, Equatable {
        /// The version of the snapshot.
        package var version: UInt64
        /// The store identity.
        package var storeID: UInt64
        /// The sequence number of the log segment that continues the snapshot.
        package var firstSegment: UInt64

        /// Creates a header.
        package init(version: UInt64, storeID: UInt64, firstSegment: UInt64) {
            self.version = version
            self.storeID = storeID
            self.firstSegment = firstSegment
        }
    }

    /// A checkpoint read back from disk.
    package struct Contents: Sendable {
        /// The header fields.
        package var header: Header
        /// The encoded snapshot.
        package var payload: [UInt8]
        /// The version of the snapshot.
        package var version: UInt64 { header.version }
    }

    /// The path of the temporary file a checkpoint is written to before its rename.
    package static func temporaryPath(for path: String) -> String { path + ".tmp" }

    /// Whether `file` starts with a checkpoint's magic (any format version).
    package static func isCheckpoint(_ file: POSIXFile) throws -> Bool {
        try file.read(count: magic.count, at: 0) == magic
    }

    /// Durably replaces the checkpoint at `path`.
    ///
    /// - Parameter locked: when given, the new file is locked exclusively (see
    ///   ``POSIXFile/tryLockExclusive()``) before it is renamed into place, and handed to this
    ///   closure right away: keep it open to keep the lock. It is called before the rename, so the
    ///   caller holds the new file even when the rename or the directory sync then fails (the
    ///   file at `path` is then either the old checkpoint or the new one).
    /// - Throws: ``StrataError/Code/fileAccess`` (the `.tmp` file is removed and the previous
    ///   checkpoint stays in place, unless the rename itself was done and only the directory sync
    ///   failed); ``StrataError/Code/alreadyOpenInAnotherProcess`` when the new file cannot be
    ///   locked.
    package static func write(
        path: String, header fields: Header, payload: [UInt8], locked: ((POSIXFile) -> Void)? = nil
    ) throws {
        var header = ByteWriter(capacity: headerSize)
        header.writeRaw(magic)
        header.writeFixed(formatVersion)
        header.writeFixed(UInt32(0))
        header.writeFixed(fields.version)
        header.writeFixed(fields.storeID)
        header.writeFixed(fields.firstSegment)
        header.writeFixed(UInt64(payload.count))
        header.writeFixed(CRC32C.checksum(payload))
        header.writeFixed(CRC32C.checksum(header.bytes))

        let temporary = temporaryPath(for: path)
        let file = try POSIXFile(path: temporary, mode: .truncate)
        do {
            try file.write(header.bytes, at: 0)
            try file.write(payload, at: UInt64(headerSize))
            try file.sync()
            if let locked {
                guard try file.tryLockExclusive() else {
                    throw StrataError(.alreadyOpenInAnotherProcess, "another process holds the new checkpoint file",
                                      path: temporary)
                }
                locked(file)
            }
            try FileSystem.atomicReplace(temporary, with: path)
        } catch {
            // Nothing reads a `.tmp`; leaving a partial one behind would only hold on to the
            // space a full disk needs back. (After a failed directory sync the rename is done
            // and there is no `.tmp` to remove.)
            try? FileSystem.remove(temporary)
            throw error
        }
    }

    /// Reads the checkpoint at `path`, or returns nil when there is none.
    ///
    /// - Throws: ``StrataError/Code/invalidFileFormat`` when the file is not a Strata checkpoint
    ///   of format 2, ``StrataError/Code/corruptFile`` (with the offset) when a checksum fails.
    package static func read(path: String) throws -> Contents? {
        guard FileSystem.exists(path) else { return nil }
        return try read(POSIXFile(path: path, mode: .readOnly))
    }

    /// Reads the checkpoint in `file`.
    ///
    /// - Throws: as ``read(path:)``.
    package static func read(_ file: POSIXFile) throws -> Contents {
        let path = file.path
        let bytes = try file.readAll()
        return try bytes.withUnsafeBytes { (raw) throws -> Contents in
            guard raw.count >= 8, Array(raw[0..<8]) == magic else {
                throw StrataError(.invalidFileFormat, "not a Strata file (bad magic)", path: path, offset: 0)
            }
            guard raw.count >= 12 else {
                throw StrataError(.corruptFile, "checkpoint header is truncated", path: path, offset: UInt64(raw.count))
            }
            let format = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
            guard format == formatVersion else {
                throw StrataError(.invalidFileFormat,
                                  "unsupported checkpoint format \(format) (this version reads format "
                                      + "\(formatVersion); format 1 was written by an earlier Strata and is "
                                      + "upgraded by opening the store read-write)",
                                  path: path, offset: 8)
            }
            guard raw.count >= headerSize else {
                throw StrataError(.corruptFile, "checkpoint header is truncated", path: path, offset: UInt64(raw.count))
            }
            let headerCRC = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 52, as: UInt32.self))
            guard CRC32C.checksum(UnsafeRawBufferPointer(rebasing: raw[0..<52])) == headerCRC else {
                throw StrataError(.corruptFile, "checkpoint header checksum mismatch", path: path, offset: 0)
            }
            let fields = Header(
                version: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self)),
                storeID: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 24, as: UInt64.self)),
                firstSegment: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 32, as: UInt64.self)))
            let length = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 40, as: UInt64.self))
            guard length == UInt64(raw.count - headerSize) else {
                throw StrataError(.corruptFile, "checkpoint is \(raw.count - headerSize) bytes, header says \(length)",
                                  path: path, offset: UInt64(headerSize))
            }
            let payload = UnsafeRawBufferPointer(rebasing: raw[headerSize...])
            let payloadCRC = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 48, as: UInt32.self))
            guard CRC32C.checksum(payload) == payloadCRC else {
                throw StrataError(.corruptFile, "checkpoint payload checksum mismatch", path: path,
                                  offset: UInt64(headerSize))
            }
            return Contents(header: fields, payload: Array(payload))
        }
    }
}
