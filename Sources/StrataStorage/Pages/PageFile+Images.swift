import StrataSupport

extension PageFile {
    /// How images are cut into this file's pages.
    package var layout: PageLayout { PageLayout(pageSize: pageSize, reservedBytes: transform.reservedBytes) }

    /// Reads the image at `extent`, checking that its first page has `kind` and the others are
    /// ``PageKind/overflow`` pages.
    ///
    /// - Throws: ``StrataError/Code/corruptFile`` naming the file and the page when a page is
    ///   damaged (see ``read(page:)``) or of another kind; ``StrataError/Code/fileAccess``.
    package func readImage(_ extent: PageExtent, kind: PageKind) throws -> [UInt8] {
        try readImage(extent, kinds: [kind]).bytes
    }

    /// Reads the image at `extent`, checking that its first page has one of `kinds` and the
    /// others are ``PageKind/overflow`` pages; returns the first page's kind and the image.
    ///
    /// - Throws: as ``readImage(_:kind:)``.
    package func readImage(_ extent: PageExtent, kinds: [PageKind]) throws -> (kind: PageKind, bytes: [UInt8]) {
        guard extent.count >= 1, extent.first.addingReportingOverflow(UInt64(extent.count)).overflow == false else {
            throw StrataError(.corruptFile, "\(path) refers to an empty or impossible run of pages at \(extent.first)",
                              path: path)
        }
        var image: [UInt8] = []
        var kind = PageKind.overflow
        // A few pages per read: a damaged reference claiming a long run is refused at the first
        // page of the wrong kind, without reading (or allocating for) the whole run first.
        var next = extent.first
        while next < extent.first + UInt64(extent.count) {
            let chunk = PageExtent(first: next, count: UInt32(min(UInt64(Self.pagesPerRead),
                                                                  extent.first + UInt64(extent.count) - next)))
            // A chunk that fails to read is read again page by page, so that the error names the
            // first page that is wrong (of the wrong kind, or damaged).
            let batch = try? read(pages: chunk)
            for (offset, number) in chunk.pages.enumerated() {
                let page = try batch?[offset] ?? read(page: number)
                let isFirst = number == extent.first
                let expected = isFirst ? kinds.contains(page.kind) : page.kind == .overflow
                guard expected else {
                    let wanted = isFirst ? kinds.map(\.description).joined(separator: " or ") : "overflow"
                    throw StrataError(.corruptFile,
                                      "page \(number) of \(path) is damaged: it holds a \(page.kind) page where a "
                                          + "\(wanted) page belongs", path: path, offset: number * UInt64(pageSize))
                }
                if isFirst { kind = page.kind }
                if extent.count == 1 { return (kind, page.payload) }
                image.append(contentsOf: page.payload)
            }
            next += UInt64(chunk.count)
        }
        return (kind, image)
    }

    /// The most pages ``readImage(_:kinds:)`` reads with one call.
    static let pagesPerRead = 16

    /// Takes the process's lock on the file: exclusive, or shared for a reader.
    ///
    /// - Returns: false when another process holds a conflicting lock.
    package func tryLock(exclusive: Bool) throws -> Bool {
        try exclusive ? file.tryLockExclusive() : file.tryLockShared()
    }
}
