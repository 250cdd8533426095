import StrataSupport

extension PageFileHeader {
    /// How many bytes from the start of a file ``current(in:fileSize:path:)`` needs: both slots
    /// at the largest page size.
    package static let slotsSpan = 2 * PageFrame.maximumPageSize

    /// The header a file opens at, chosen from its two slots.
    ///
    /// Each slot is decoded at the page size it names (slot 1 at offset pageSize: slot 0's when
    /// slot 0 is valid, else wherever a page size puts a slot that checks out). The valid slot
    /// with the higher generation wins; a torn or damaged slot is skipped, so a crash while a
    /// checkpoint wrote its slot opens at the previous checkpoint. A slot counts only if its
    /// frame checks out, so a damaged version field falls back to the other slot too.
    ///
    /// - Parameters:
    ///   - bytes: the first ``slotsSpan`` bytes of the file (fewer when the file is shorter).
    ///   - fileSize: the size of the whole file.
    /// - Throws: ``StrataError/Code/invalidFileFormat`` when neither slot has the magic (not a
    ///   Strata page file) or a slot whose frame checks out was written in another file-format
    ///   version (the message names it: a later Strata wrote to the file); ``StrataError/Code/corruptFile`` naming the file and page 0 when both
    ///   slots are damaged, or when the file is shorter than the header's page count (naming
    ///   the first missing page).
    package static func current(in bytes: [UInt8], fileSize: UInt64, path: String) throws -> PageFileHeader {
        try choose(in: bytes, fileSize: fileSize, path: path).header
    }

    /// A header slot the choice of ``current(in:fileSize:path:)`` passed over because it does not
    /// check out: torn by a crash while a checkpoint wrote it (the other slot is then the
    /// current header, and its log is still there), or damaged after it became current (then
    /// the other slot's log is gone; see ``PageFile/skippedSlot``).
    package struct SkippedSlot: Sendable, Equatable {
        /// The slot's number, which is its page number: 0 or 1.
        package var slot: UInt64
        /// What is wrong with it.
        package var problem: String
    }

    /// The header a file opens at (see ``current(in:fileSize:path:)``) and the slot passed over
    /// because it is damaged or holds no header, if any (an unwritten slot 1 of a file at
    /// generation 0 is not passed over: it was never written).
    ///
    /// - Throws: as ``current(in:fileSize:path:)``.
    static func choose(in bytes: [UInt8], fileSize: UInt64, path: String) throws
        -> (header: PageFileHeader, skipped: SkippedSlot?) {
        let first = decodeSlot(0, in: bytes, path: path)
        let pageSize: Int? = if case .valid(let header) = first { header.pageSize } else { nil }
        let slots = [first, decodeSlot(1, in: bytes, pageSize: pageSize, path: path)]
        var best: PageFileHeader?
        var newestUnknown: UInt32?
        var damage: [String] = []
        for (number, slot) in slots.enumerated() {
            switch slot {
            case .absent: damage.append("slot \(number): no header")
            case .damaged(let why): damage.append("slot \(number): \(why)")
            case .unknownVersion(let version): newestUnknown = max(newestUnknown ?? 0, version)
            case .valid(let header):
                if best.map({ header.generation > $0.generation }) ?? true { best = header }
            }
        }
        if let newestUnknown {
            throw StrataError(.invalidFileFormat,
                              "\(path) is a Strata page file of format version \(newestUnknown); "
                                  + "this version of Strata reads format versions \(readableFormatVersions.lowerBound) to "
                                  + "\(readableFormatVersions.upperBound)",
                              path: path, offset: UInt64(magicOffset + 8))
        }
        guard let header = best else {
            if slots.allSatisfy({ if case .absent = $0 { true } else { false } }) {
                throw StrataError(.invalidFileFormat, "\(path) is not a Strata page file (no header slot has the magic)",
                                  path: path, offset: 0)
            }
            throw StrataError(.corruptFile,
                              "page 0 of \(path) is damaged: neither header slot is valid (\(damage.joined(separator: "; ")))",
                              path: path, offset: 0)
        }
        let needed = header.checkpoint.pageCount.multipliedReportingOverflow(by: UInt64(header.pageSize))
        guard !needed.overflow, fileSize >= needed.partialValue else {
            let firstMissing = fileSize / UInt64(header.pageSize)
            throw StrataError(.corruptFile,
                              "page \(firstMissing) of \(path) is missing: the file is \(fileSize) bytes, its "
                                  + "header (generation \(header.generation)) names \(header.checkpoint.pageCount) "
                                  + "pages of \(header.pageSize) bytes (truncated)",
                              path: path, offset: fileSize)
        }
        var skipped: SkippedSlot?
        for (number, slot) in slots.enumerated() {
            switch slot {
            case .damaged(let why): skipped = SkippedSlot(slot: UInt64(number), problem: why)
            case .absent where header.generation > 0:
                skipped = SkippedSlot(slot: UInt64(number), problem: "it holds no header (its magic is gone)")
            default: break
            }
        }
        return (header, skipped)
    }
}
