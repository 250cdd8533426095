import StrataSupport

extension PageFile {
    /// One page a checkpoint writes.
    package struct PageWrite: Sendable {
        /// The page number (at least 2, below the checkpoint's page count).
        package var number: UInt64
        /// The page's kind (not ``PageKind/headerSlot``).
        package var kind: PageKind
        /// The payload, at most ``PageFile/payloadCapacity`` bytes.
        package var payload: [UInt8]

        /// Describes a page to write.
        package init(number: UInt64, kind: PageKind, payload: [UInt8]) {
            self.number = number
            self.kind = kind
            self.payload = payload
        }
    }

    /// Writes a checkpoint: `pages`, then a header one generation on with `fields`.
    ///
    /// The caller guarantees that no page written is reachable from the current header (or from
    /// any snapshot still read): pages are overwritten in place. In order: every page is written
    /// at its offset (the file grows as needed, to at least `fields.pageCount` pages), the file
    /// is synced (`fdatasync`), the slot the current header is not in is written with generation
    /// + 1, the file is synced again, and the new header becomes current. Each page goes into the
    /// cache once written (the cache only ever holds what the disk was given; the pages of a
    /// checkpoint that fails stay unreachable, and the next one to use their numbers replaces
    /// them).
    ///
    /// Crash and failure semantics: until the second sync finishes, a crash opens at the previous
    /// generation or (when the new slot reached the disk whole) the new one, each with all its
    /// pages intact, since the new slot is written only after the new pages are durable. A
    /// failure before the slot is written (a page write, growing the file, the first sync)
    /// leaves the previous slot the only valid one on disk and does not poison the file: no
    /// header reaches the pages it wrote, so a later checkpoint may write (and sync) them again.
    /// A failure writing the slot or syncing it leaves the previous or the new one, whichever
    /// the disk kept, and poisons the file.
    ///
    /// - Returns: the new header.
    /// - Throws: ``StrataError/Code/invalidInput`` before writing anything when a page is 0, 1, at
    ///   or past `fields.pageCount`, given twice, a header slot kind or too large, or the roots
    ///   are larger than ``PageFileHeader/maximumRootsSize``; ``StrataError/Code/readOnly``;
    ///   ``StrataError/Code/fileAccess`` (with the errno) when a write or sync fails (from the
    ///   slot write on, this poisons the file); ``StrataError/Code/poisoned`` after a poisoning
    ///   failure, until reopened.
    @discardableResult
    package func writeCheckpoint(_ pages: [PageWrite], fields: PageFileHeader.CheckpointFields) throws -> PageFileHeader {
        try Self.validate(fields, pageSize: pageSize, path: path)
        _ = try Self.checkedOrder(pages, pageCount: fields.pageCount, pageSize: pageSize, transform: transform,
                                  path: path)
        return try writeCheckpoint { write in
            try write(pages)
            return fields
        }
    }

    /// Writes a checkpoint whose pages `produce` hands over in batches as it makes them, then
    /// returns the new header's fields: a checkpoint that writes much holds one batch of pages at
    /// a time, not all of them.
    ///
    /// The same order, crash and failure semantics as ``writeCheckpoint(_:fields:)``: every batch
    /// is written as it comes (each page at most once over all batches), and once `produce`
    /// returns, the file grows to the fields' page count and is synced, and only then is the new
    /// header's slot written and synced. A page is checked as its batch comes, so an invalid one
    /// throws after earlier batches were written (which no header reaches). The cache is bounded,
    /// so putting the pages in it does not keep them all.
    ///
    /// - Parameter produce: called once, with the page file's write lock held, with a function
    ///   that writes a batch of pages; returns the fields of the new header (whose page count
    ///   must cover every page written). An error it throws ends the checkpoint before the
    ///   header is written.
    /// - Returns: the new header.
    /// - Throws: as ``writeCheckpoint(_:fields:)``, and what `produce` throws.
    @discardableResult
    package func writeCheckpoint(
        streaming produce: (_ write: ([PageWrite]) throws -> Void) throws -> PageFileHeader.CheckpointFields
    ) throws -> PageFileHeader {
        guard !readOnly else {
            throw StrataError(.readOnly, "the page file \(path) was opened read-only", path: path)
        }
        return try writing.withLockedValue { (_: inout Void) throws -> PageFileHeader in
            try poison.check()
            let previous = header
            guard previous.generation < UInt64.max else {
                throw StrataError(.corruptFile, "page 0 of \(path) is damaged: its generation cannot grow", path: path,
                                  offset: 0)
            }
            let generation = previous.generation + 1
            var written = Set<UInt64>()
            var highest: UInt64 = 1
            // Until the slot is written, the disk's header is the previous one whatever happened
            // to the new pages, which no header reaches: a failure here leaves the file as it
            // was, and the next checkpoint writes its pages again (its sync covers them anew).
            // A batch's page writes and the final sync are file errors; what `produce` throws
            // otherwise passes through as it is.
            func fileFailure(_ error: any Error) -> any Error {
                error is StrataError ? error
                    : StrataError(.fileAccess, "writing the pages of a checkpoint of \(path) failed: \(error)", path: path)
            }
            let fields = try produce { pages in
                let order = try Self.checkedOrder(pages, pageCount: UInt64.max, pageSize: pageSize,
                                                  transform: transform, path: path)
                for page in pages {
                    guard written.insert(page.number).inserted else {
                        throw StrataError(.invalidInput, "a checkpoint cannot write page \(page.number) of "
                                          + "\(path): it is given twice", path: path)
                    }
                    highest = max(highest, page.number)
                }
                do {
                    try Self.writePages(pages, in: order, generation: generation, pageSize: pageSize,
                                        transform: transform, to: file)
                } catch {
                    throw fileFailure(error)
                }
                for page in pages {
                    cache.insert(PageFrame.Decoded(kind: page.kind, generation: generation, payload: page.payload),
                                 number: page.number)
                }
            }
            try Self.validate(fields, pageSize: pageSize, path: path)
            guard highest < fields.pageCount else {
                throw StrataError(.invalidInput, "a checkpoint cannot write page \(highest) of \(path): the page "
                                  + "count is \(fields.pageCount)", path: path)
            }
            do {
                let size = UInt64(pageSize) * fields.pageCount
                if try file.size() < size { try file.truncate(to: size) }
                try file.sync()
            } catch {
                throw fileFailure(error)
            }
            let next = PageFileHeader(generation: generation, pageSize: pageSize, storeID: previous.storeID,
                                      checkpoint: fields, transformID: previous.transformID)
            do {
                try file.write(next.encodeSlot(), at: next.slot * UInt64(pageSize))
                try poison.sync { try file.sync() }
            } catch {
                throw poison.record(error)
            }
            current.withLockedValue { $0 = next }
            return next
        }
    }

    /// Checks `pages` (numbers, kinds, sizes) and returns their indices in page-number order.
    static func checkedOrder(
        _ pages: [PageWrite], pageCount: UInt64, pageSize: Int, transform: any PageTransform, path: String
    ) throws -> [Int] {
        let payloadCapacity = PageFrame.payloadCapacity(pageSize: pageSize, reserved: transform.reservedBytes)
        var seen = Set<UInt64>()
        seen.reserveCapacity(pages.count)
        for page in pages {
            func refuse(_ why: String) -> StrataError {
                StrataError(.invalidInput, "a checkpoint cannot write page \(page.number) of \(path): \(why)", path: path)
            }
            guard page.number >= 2 else { throw refuse("pages 0 and 1 are the header slots") }
            guard page.number < pageCount else { throw refuse("the page count is \(pageCount)") }
            guard seen.insert(page.number).inserted else { throw refuse("it is given twice") }
            guard page.kind != .headerSlot, page.kind.rawValue != 0 else { throw refuse("its kind is \(page.kind)") }
            guard page.payload.count <= payloadCapacity else {
                throw refuse("its payload of \(page.payload.count) bytes exceeds the \(payloadCapacity) a page holds")
            }
        }
        return pages.indices.sorted { pages[$0].number < pages[$1].number }
    }

    /// Writes `pages` (checked, in `order`) for `generation` to `file`, each page's disk image
    /// made just before its write, so a large checkpoint holds one image at a time, not all.
    static func writePages(
        _ pages: [PageWrite], in order: [Int], generation: UInt64, pageSize: Int, transform: any PageTransform,
        to file: POSIXFile
    ) throws {
        for index in order {
            let page = pages[index]
            var image = PageFrame.encode(kind: page.kind, number: page.number, generation: generation,
                                         payload: page.payload, pageSize: pageSize)
            try transform.encode(&image, pageNumber: page.number)
            try file.write(image, at: page.number * UInt64(pageSize))
        }
    }
}

extension PageFile {
    /// Writes the current header's slot again and syncs it, so that it is on the disk and not only
    /// in the page cache.
    ///
    /// After a failed sync of a slot, the page cache may keep showing the new slot while the disk
    /// lost it (Linux reports a write-back error once and drops the pages' dirty state). A store
    /// reopened in the same boot would then build on a header the disk does not have, and may
    /// delete log segments that the disk's older header still needs. A read-write open calls this
    /// before anything relies on the header: the slot it read is durable once this returns.
    ///
    /// - Throws: ``StrataError/Code/readOnly``; ``StrataError/Code/fileAccess`` when the write or
    ///   the sync fails (which poisons the file).
    package func makeHeaderDurable() throws {
        guard !readOnly else {
            throw StrataError(.readOnly, "the page file \(path) was opened read-only", path: path)
        }
        try writing.withLockedValue { (_: inout Void) throws in
            try poison.check()
            let header = self.header
            do {
                try file.write(header.encodeSlot(), at: header.slot * UInt64(pageSize))
                try poison.sync { try file.sync() }
            } catch {
                throw poison.record(error)
            }
        }
    }
}
