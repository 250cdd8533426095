import StrataSupport

extension PageFile {
    /// A page as ``PageFile/read(page:)`` returns it.
    ///
    /// The payload is an immutable array that shares its storage with the cached copy (no copy
    /// is made on a hit); it stays valid after the page is evicted.
    package typealias Page = PageFrame.Decoded

    /// Reads page `number` through the cache.
    ///
    /// Safe to call from many threads at once and while a checkpoint runs; a miss reads and
    /// decodes the page outside the cache's lock. The cache is keyed by page number: a
    /// checkpoint replaces the cached copy of every page it writes, and since it writes only
    /// pages no reader may reach (see ``writeCheckpoint(_:fields:)``), a read never meets a
    /// stale copy.
    ///
    /// - Throws: ``StrataError/Code/corruptFile`` naming the file and page when the number is a
    ///   header slot or past the current header's page count, when the page fails its checks
    ///   (see ``PageFrame/decode(_:number:pageSize:reserved:path:)``) or the transform's, or when
    ///   it was written by a generation after the current header's (a page no checkpoint of
    ///   this file reaches); ``StrataError/Code/fileAccess`` when the read fails.
    package func read(page number: UInt64) throws -> Page {
        if let page = cache.lookup(number) { return page }
        let header = self.header
        let offset = number.multipliedReportingOverflow(by: UInt64(pageSize))
        guard number >= 2, number < header.checkpoint.pageCount, !offset.overflow else {
            throw StrataError(.corruptFile,
                              "page \(number) of \(path) does not exist: the file has pages 2 ..< "
                                  + "\(header.checkpoint.pageCount) (0 and 1 are the header slots)",
                              path: path, offset: offset.overflow ? nil : offset.partialValue)
        }
        let image = try file.read(count: pageSize, at: offset.partialValue)
        return try decode(image, number: number, generation: header.generation)
    }

    /// Reads the pages of `extent` through the cache, with one read of the file for the pages
    /// the cache does not hold (an image continued in overflow pages is read at once).
    ///
    /// - Throws: as ``read(page:)``, for the first page that fails.
    package func read(pages extent: PageExtent) throws -> [Page] {
        guard extent.count > 1 else { return [try read(page: extent.first)] }
        let header = self.header
        let (end, overflow) = extent.first.addingReportingOverflow(UInt64(extent.count))
        let offset = extent.first.multipliedReportingOverflow(by: UInt64(pageSize))
        guard extent.first >= 2, !overflow, end <= header.checkpoint.pageCount, !offset.overflow,
              !UInt64(pageSize).multipliedReportingOverflow(by: UInt64(extent.count)).overflow else {
            // One page at a time, so the error names the first page that does not exist.
            return try extent.pages.map { try read(page: $0) }
        }
        let bytes = try file.read(count: pageSize * Int(extent.count), at: offset.partialValue)
        var pages: [Page] = []
        pages.reserveCapacity(Int(extent.count))
        for (index, number) in extent.pages.enumerated() {
            if let page = cache.lookup(number) {
                pages.append(page)
                continue
            }
            let start = min(index * pageSize, bytes.count), end = min(start + pageSize, bytes.count)
            pages.append(try decode(Array(bytes[start..<end]), number: number, generation: header.generation))
        }
        return pages
    }

    /// Checks and decodes the disk image of page `number` (its transform undone), refusing a page
    /// of a generation after `generation`, and caches it.
    private func decode(_ bytes: [UInt8], number: UInt64, generation: UInt64) throws -> Page {
        var image = bytes
        if image.count == pageSize { try transform.decode(&image, pageNumber: number, path: path) }
        let page = try PageFrame.decode(image, number: number, pageSize: pageSize,
                                        reserved: transform.reservedBytes, path: path)
        guard page.generation <= generation else {
            throw StrataError(.corruptFile,
                              "page \(number) of \(path) is damaged: it was written by generation "
                                  + "\(page.generation), after the file's generation \(generation)",
                              path: path, offset: number * UInt64(pageSize))
        }
        cache.insert(page, number: number)
        return page
    }
}
