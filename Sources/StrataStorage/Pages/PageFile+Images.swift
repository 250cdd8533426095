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
        for (index, (number, page)) in zip(extent.pages, try read(pages: extent)).enumerated() {
            let expected = index == 0 ? kinds.contains(page.kind) : page.kind == .overflow
            guard expected else {
                let wanted = index == 0 ? kinds.map(\.description).joined(separator: " or ") : "overflow"
                throw StrataError(.corruptFile,
                                  "page \(number) of \(path) is damaged: it holds a \(page.kind) page where a "
                                      + "\(wanted) page belongs", path: path, offset: number * UInt64(pageSize))
            }
            if index == 0 { kind = page.kind }
            if extent.count == 1 { return (kind, page.payload) }
            image.append(contentsOf: page.payload)
        }
        return (kind, image)
    }

    /// Takes the process's lock on the file: exclusive, or shared for a reader.
    ///
    /// - Returns: false when another process holds a conflicting lock.
    package func tryLock(exclusive: Bool) throws -> Bool {
        try exclusive ? file.tryLockExclusive() : file.tryLockShared()
    }
}
