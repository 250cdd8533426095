import StrataSupport

/// What a checkpoint says about the log that continues it.
package struct LogAnchor: Sendable, Equatable {
    /// The store identity: random, chosen when the store was created, carried by the
    /// checkpoint and by every log segment.
    package var storeID: UInt64
    /// The version of the checkpoint's snapshot: the base version of ``firstSegment``.
    package var version: UInt64
    /// The sequence number of the first segment holding records after ``version``.
    package var firstSegment: UInt64
    /// The checkpoint file, named in errors.
    package var path: String

    /// Creates an anchor.
    package init(storeID: UInt64, version: UInt64, firstSegment: UInt64, path: String) {
        self.storeID = storeID
        self.version = version
        self.firstSegment = firstSegment
        self.path = path
    }
}

extension CommitLog {
    /// A record read back during recovery.
    package struct RecoveredRecord: Sendable {
        /// The commit version.
        package var version: UInt64
        /// The payload bytes.
        package var payload: [UInt8]
        /// The segment file the record is in.
        package var path: String
        /// The offset of the record's header in that file.
        package var offset: UInt64
    }

    /// What recovery found.
    package struct Recovery: Sendable {
        /// Records newer than the checkpoint, in version order.
        package var records: [RecoveredRecord]
        /// Bytes cut from the end of the last segment: its torn tail, after its durable length.
        package var truncatedBytes: UInt64
    }

    /// A new random store identity (never 0).
    package static func makeStoreID() -> UInt64 {
        UInt64.random(in: 1 ... .max)
    }

    /// Opens the log of `storePath` for appending, first reading back every record after the
    /// checkpoint described by `anchor` (nil when the store has no checkpoint).
    ///
    /// Recovery rules:
    /// - The segments are those numbered `anchor.firstSegment` (1 without a checkpoint) and up,
    ///   with no gap. Lower-numbered segments are covered by the checkpoint (a crash after the
    ///   checkpoint's rename, before their deletion) and are deleted. A missing segment, a
    ///   segment of another store, or a segment whose base version is not where the records
    ///   before it (or the checkpoint) end is ``StrataError/Code/corruptFile`` naming it.
    /// - Every segment but the last was synced in full before its successor was created: any
    ///   record in it that fails its checks is corruption.
    /// - The last segment is durable through the length in its durable marker. A record that
    ///   fails its checks inside that length is corruption (named by path and offset); from the
    ///   first one after it, the file is a torn tail (unwritten pages, a torn sector, a record
    ///   whose write did not finish) and is cut off, unless it is all zeros: space reserved for
    ///   appends (``CommitLog/preallocate(inStepsOf:)``), kept. A last segment marked sealed means its
    ///   successor was created and is now missing: corruption.
    /// - A newest segment whose header is all zeros or shorter than a header was being created
    ///   when the process stopped; it is removed, unless the checkpoint names it or the segment
    ///   before it is sealed (then its header had been synced: corruption). So is such a newest
    ///   segment without records (nothing but zeros after its header) whose header is damaged or
    ///   whose base version is not the end of the segment before it: a rotation that failed while
    ///   or after writing the header, after which appends went on in the segment before it.
    /// - A record is accepted only at the offset where the previous one ended, with a valid
    ///   header, the expected chain value (see ``LogRecord``) and payload checksum, and the next
    ///   version; a valid record with any other version is corruption.
    ///
    /// The records kept (durable or not) are written again, synced and marked durable before the
    /// log is used, so later appends never sit behind a tail that could still vanish (rewritten,
    /// because a sync that failed before a reopen may have left them in the page cache only).
    ///
    /// - Throws: ``StrataError/Code/corruptFile`` or ``StrataError/Code/invalidFileFormat``
    ///   (also for format 1 segments) naming the segment and offset; ``StrataError/Code/fileAccess``.
    package static func open(storePath: String, anchor: LogAnchor? = nil) throws -> (CommitLog, Recovery) {
        let survey = try survey(storePath: storePath, anchor: anchor, mode: .readWriteCreate)
        let (records, covered, unwrittenNewest, kept, first, base) =
            (survey.records, survey.covered, survey.unwrittenNewest, survey.kept, survey.first, survey.base)

        // Everything is consistent: now change files.
        for segment in covered { try FileSystem.remove(segment.path) }
        if let unwrittenNewest { try FileSystem.remove(unwrittenNewest.path) }
        if !covered.isEmpty || unwrittenNewest != nil { try FileSystem.syncDirectory(containing: storePath) }

        let storeID = survey.storeID ?? makeStoreID()
        guard let last = survey.last else {
            let fields = LogSegment.Header(salt: UInt32.random(in: .min ... .max), sequence: first,
                                           storeID: storeID, baseVersion: base)
            let (segment, file) = try LogSegment.create(storePath: storePath, fields: fields)
            let current = Current(file: file, segments: [segment], appendOffset: UInt64(LogSegment.headerSize),
                                  lastVersion: base, chain: fields.salt, syncedLength: UInt64(LogSegment.headerSize),
                                  markedLength: UInt64(LogSegment.headerSize),
                                  allocatedLength: UInt64(LogSegment.headerSize))
            return (CommitLog(storePath: storePath, storeID: storeID, current: current),
                    Recovery(records: records, truncatedBytes: 0))
        }
        let end = UInt64(last.scan.end)
        let truncated = last.reservedOnly ? 0 : UInt64(last.size) - end
        if truncated > 0 || last.scan.markedLength != end {
            if truncated > 0 { try last.file.truncate(to: end) }
            // Write the kept records past the marker again before syncing them: after a failed
            // sync (the store was poisoned, then reopened in the same boot) the kernel may have
            // dropped those pages' write-back while the page cache still shows them, so a sync of
            // the file alone would succeed without putting them on disk. Rewriting dirties them.
            let unconfirmed = min(last.scan.markedLength, end)
            if unconfirmed < end {
                let bytes = try last.file.read(count: Int(end - unconfirmed), at: unconfirmed)
                try last.file.write(bytes, at: unconfirmed)
            }
            // Sync first: the marker may name only bytes already on stable storage. The marker
            // itself reaches the disk with the next sync (or earlier); either version is true.
            try last.file.sync()
            try writeMarker(LogSegment.Marker(durableLength: end, sealed: false), to: last.file)
        }
        let current = Current(file: last.file, segments: kept, appendOffset: end, lastVersion: last.scan.lastVersion,
                              chain: last.scan.chain, syncedLength: end, markedLength: end,
                              allocatedLength: end + (last.reservedOnly ? UInt64(last.size) - end : 0),
                              sealedBytes: survey.keptBytes - end)
        return (CommitLog(storePath: storePath, storeID: storeID, current: current),
                Recovery(records: records, truncatedBytes: truncated))
    }

    /// What reading the log without changing it found (see ``survey(storePath:anchor:mode:)``).
    struct Survey {
        var records: [RecoveredRecord]
        /// The segments the checkpoint covers (to delete).
        var covered: [LogSegment]
        /// A newest segment that was being created when the process stopped (to delete).
        var unwrittenNewest: LogSegment?
        /// The segments kept, in order.
        var kept: [LogSegment]
        /// The last segment kept, its file (opened in the survey's mode) and what its scan found.
        var last: (segment: LogSegment, file: POSIXFile, scan: Scan, size: Int, reservedOnly: Bool)?
        /// The sequence number of the first segment after the checkpoint.
        var first: UInt64
        /// The version the records kept end at.
        var base: UInt64
        /// The store identity the segments carry (nil when there is none).
        var storeID: UInt64?
        /// The bytes of the segments kept, up to the end of each one's last record.
        var keptBytes: UInt64
    }

    /// Reads every segment of the log of `storePath` after the checkpoint `anchor` describes by
    /// the rules of ``open(storePath:anchor:)``, opening each in `mode` and changing nothing.
    ///
    /// - Throws: as ``open(storePath:anchor:)``.
    static func survey(storePath: String, anchor: LogAnchor?, mode: POSIXFile.Mode) throws -> Survey {
        let first = anchor?.firstSegment ?? 1
        let all = try segments(storePath: storePath)
        let covered = all.filter { $0.sequence < first }
        let live = all.filter { $0.sequence >= first }
        for (index, segment) in live.enumerated() where segment.sequence != first + UInt64(index) {
            throw missingSegment(storePath: storePath, sequence: first + UInt64(index),
                                 reason: "the log continues in segment \(segment.sequence)")
        }
        if let anchor, live.isEmpty {
            throw missingSegment(storePath: storePath, sequence: first,
                                 reason: "the checkpoint \(anchor.path) at version \(anchor.version) continues in it")
        }

        var records: [RecoveredRecord] = []
        var expectedID = anchor?.storeID
        var base = anchor?.version ?? 0
        var previousSealed = false
        var last: (segment: LogSegment, file: POSIXFile, scan: Scan, size: Int, reservedOnly: Bool)?
        var unwrittenNewest: LogSegment?
        var kept: [LogSegment] = []
        var keptBytes: UInt64 = 0
        for (index, segment) in live.enumerated() {
            let isLast = index == live.count - 1
            let file = try POSIXFile(path: segment.path, mode: mode)
            let bytes = try file.readAll()
            let mayBeAbandoned = isLast && index > 0 && segment.sequence != anchor?.firstSegment && !previousSealed
            if bytes.withUnsafeBytes(LogSegment.isUnwritten) {
                guard mayBeAbandoned || (isLast && index == 0 && anchor == nil) else {
                    throw StrataError(.corruptFile, "log segment header is missing, but the segment was complete",
                                      path: segment.path, offset: 0)
                }
                unwrittenNewest = segment
                break
            }
            if mayBeAbandoned, bytes.withUnsafeBytes({ raw in
                guard LogSegment.hasNoRecords(raw) else { return false }
                let header = try? LogSegment.validateHeader(raw, path: segment.path)
                return header?.baseVersion != base
            }) {
                // A rotation that failed while writing the header, or after it: the writer went on
                // appending to the segment before it. The segment holds nothing.
                unwrittenNewest = segment
                break
            }
            let scan = try bytes.withUnsafeBytes { (raw) throws -> Scan in
                try scanSegment(raw, segment: segment, isLast: isLast, storeID: &expectedID, base: base,
                                into: &records)
            }
            base = scan.lastVersion
            previousSealed = scan.sealed
            kept.append(segment)
            keptBytes += UInt64(scan.end)
            // Zeros after the last record are space reserved for appends (see `preallocate`), kept;
            // anything else there is a torn tail, cut off.
            let reservedOnly = bytes.withUnsafeBytes { LogSegment.isZero(UnsafeRawBufferPointer(rebasing: $0[scan.end...])) }
            last = (segment, file, scan, bytes.count, reservedOnly)
        }
        if let last, last.scan.sealed, unwrittenNewest == nil {
            throw missingSegment(storePath: storePath, sequence: last.segment.sequence + 1,
                                 reason: "log segment \(last.segment.path) is sealed, so it had a successor")
        }

        return Survey(records: records, covered: covered, unwrittenNewest: unwrittenNewest, kept: kept, last: last,
                      first: first, base: base, storeID: expectedID, keptBytes: keptBytes)
    }

    /// Reads and checks every record of the log of `storePath` after the checkpoint `anchor`
    /// describes, as ``open(storePath:anchor:)`` does, without changing any file (a torn tail
    /// that opening would cut off is not damage: it is what a crash leaves).
    ///
    /// - Returns: the number of records after the checkpoint.
    /// - Throws: what ``open(storePath:anchor:)`` throws for the same log: ``StrataError/Code/corruptFile``
    ///   naming the segment and offset of the first damaged record or missing segment.
    /// - Complexity: O(n) in the bytes of the log.
    package static func verify(storePath: String, anchor: LogAnchor?) throws -> Int {
        try survey(storePath: storePath, anchor: anchor, mode: .readOnly).records.count
    }

    /// Every record of the log of `storePath` after the checkpoint `anchor` describes, read as
    /// ``open(storePath:anchor:)`` reads them, without changing any file.
    ///
    /// - Throws: as ``verify(storePath:anchor:)``.
    package static func recoveredRecords(storePath: String, anchor: LogAnchor?) throws -> [RecoveredRecord] {
        try survey(storePath: storePath, anchor: anchor, mode: .readOnly).records
    }

    /// Whether log segment `sequence` of `storePath` exists.
    package static func segmentExists(storePath: String, sequence: UInt64) -> Bool {
        FileSystem.exists(LogSegment.path(storePath: storePath, sequence: sequence))
    }

    /// Starts a new, empty log at segment `sequence` whose first record follows `baseVersion`,
    /// for a new store identity (used to upgrade a format 1 store). A file already at that
    /// segment's path is replaced.
    package static func start(storePath: String, sequence: UInt64, baseVersion: UInt64) throws -> CommitLog {
        let fields = LogSegment.Header(salt: UInt32.random(in: .min ... .max), sequence: sequence,
                                       storeID: makeStoreID(), baseVersion: baseVersion)
        let (segment, file) = try LogSegment.create(storePath: storePath, fields: fields)
        let current = Current(file: file, segments: [segment], appendOffset: UInt64(LogSegment.headerSize),
                              lastVersion: baseVersion, chain: fields.salt,
                              syncedLength: UInt64(LogSegment.headerSize), markedLength: UInt64(LogSegment.headerSize),
                              allocatedLength: UInt64(LogSegment.headerSize))
        return CommitLog(storePath: storePath, storeID: fields.storeID, current: current)
    }

    /// What scanning one segment found.
    struct Scan {
        /// The offset after the last record kept.
        var end: Int
        var lastVersion: UInt64
        var chain: UInt32
        var sealed: Bool
        /// The durable length the marker says (the header length when the marker is damaged).
        var markedLength: UInt64
    }

    private static func scanSegment(
        _ bytes: UnsafeRawBufferPointer, segment: LogSegment, isLast: Bool, storeID: inout UInt64?,
        base: UInt64, into records: inout [RecoveredRecord]
    ) throws -> Scan {
        let path = segment.path
        let header = try LogSegment.validateHeader(bytes, path: path)
        guard header.sequence == segment.sequence else {
            throw StrataError(.corruptFile, "log segment header says sequence \(header.sequence), its name "
                                  + "\(segment.sequence)", path: path, offset: 16)
        }
        if let storeID, header.storeID != storeID {
            throw StrataError(.corruptFile, "log segment belongs to another store (identity \(header.storeID), "
                                  + "expected \(storeID))", path: path, offset: 24)
        }
        storeID = header.storeID
        guard header.baseVersion == base else {
            throw StrataError(.corruptFile, "log segment follows version \(header.baseVersion), but the store "
                                  + "before it ends at version \(base)", path: path, offset: 32)
        }
        let marker = LogSegment.readMarker(bytes)
        let markedLength = max(UInt64(LogSegment.headerSize), marker?.durableLength ?? 0)
        // A sealed segment, and every segment before the last, was synced in full.
        let durable = isLast && marker?.sealed != true ? markedLength : UInt64(bytes.count)
        guard UInt64(bytes.count) >= durable else {
            throw StrataError(.corruptFile, "log segment is \(bytes.count) bytes, but \(durable) bytes of it were "
                                  + "synced", path: path, offset: UInt64(bytes.count))
        }
        var offset = LogSegment.headerSize
        var chain = header.salt
        var version = base
        while offset < bytes.count {
            let problem: String
            if let record = LogRecord.header(in: bytes, at: offset), record.chain == chain,
               record.payloadLength <= bytes.count - offset - LogRecord.headerSize {
                let start = offset + LogRecord.headerSize
                let payload = UnsafeRawBufferPointer(rebasing: bytes[start..<start + record.payloadLength])
                if CRC32C.checksum(payload) == record.payloadCRC {
                    guard record.version == version + 1 else {
                        throw StrataError(.corruptFile, "commit log record \(record.version) follows record \(version)",
                                          path: path, offset: UInt64(offset))
                    }
                    records.append(RecoveredRecord(version: record.version, payload: Array(payload), path: path,
                                                   offset: UInt64(offset)))
                    version = record.version
                    chain = record.headerCRC
                    offset = start + record.payloadLength
                    continue
                }
                problem = "commit log record payload checksum mismatch"
            } else {
                problem = "commit log record header is damaged or incomplete"
            }
            guard UInt64(offset) >= durable else {
                throw StrataError(.corruptFile, "\(problem) inside the synced part of the log (\(durable) bytes)",
                                  path: path, offset: UInt64(offset))
            }
            break
        }
        return Scan(end: offset, lastVersion: version, chain: chain, sealed: marker?.sealed == true,
                    markedLength: markedLength)
    }

    private static func missingSegment(storePath: String, sequence: UInt64, reason: String) -> StrataError {
        StrataError(.corruptFile, "log segment \(sequence) is missing (\(reason)); acknowledged commits would be lost",
                    path: LogSegment.path(storePath: storePath, sequence: sequence))
    }
}
