/// How images (tree nodes, the catalog, the free list) are cut into the pages of a page file of
/// one page size and transform: what a page holds, and the page writes for an image.
///
/// An image larger than one page's payload continues in the pages after its first: the first
/// page has the image's own kind, the others ``PageKind/overflow``.
package struct PageLayout: Sendable, Equatable {
    /// The size of every page.
    package var pageSize: Int
    /// The most payload one page holds.
    package var payloadCapacity: Int

    /// The layout of a file of `pageSize` pages whose transform reserves `reservedBytes` per page.
    package init(pageSize: Int = PageFrame.defaultPageSize, reservedBytes: Int = 0) {
        self.pageSize = pageSize
        payloadCapacity = PageFrame.payloadCapacity(pageSize: pageSize, reserved: reservedBytes)
    }

    /// The number of pages an image of `byteCount` bytes takes.
    package func pageCount(forImageOf byteCount: Int) -> UInt32 {
        UInt32(max(1, (byteCount + payloadCapacity - 1) / payloadCapacity))
    }

    /// The page writes that put `image` at `extent`: its first page of `kind`, the rest
    /// ``PageKind/overflow``, each holding the next ``payloadCapacity`` bytes.
    ///
    /// Precondition: `extent.count >= pageCount(forImageOf: image.count)` (pages past the image's
    /// end are empty overflow pages).
    package func pageWrites(for image: [UInt8], kind: PageKind, at extent: PageExtent) -> [PageFile.PageWrite] {
        precondition(extent.count >= pageCount(forImageOf: image.count), "PageLayout: the extent is too small for the image")
        var writes: [PageFile.PageWrite] = []
        writes.reserveCapacity(Int(extent.count))
        for (index, number) in extent.pages.enumerated() {
            let start = index * payloadCapacity
            let end = min(image.count, start + payloadCapacity)
            let payload = start == 0 && end == image.count ? image : start < end ? Array(image[start..<end]) : []
            writes.append(PageFile.PageWrite(number: number, kind: index == 0 ? kind : .overflow, payload: payload))
        }
        return writes
    }
}
