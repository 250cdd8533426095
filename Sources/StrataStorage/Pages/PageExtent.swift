/// A run of consecutive pages of a ``PageFile`` holding one image: a tree node, the catalog, the
/// free list.
///
/// An image larger than one page's payload continues in the pages after its first: the first
/// page has the image's own kind, the others ``PageKind/overflow`` (see
/// ``PageFile/pageWrites(for:kind:at:)`` and ``PageFile/readImage(_:kind:)``).
package struct PageExtent: Hashable, Sendable, CustomStringConvertible {
    /// The first page.
    package var first: UInt64
    /// The number of pages (at least 1).
    package var count: UInt32

    /// Describes `count` pages from `first`.
    package init(first: UInt64, count: UInt32) {
        self.first = first
        self.count = count
    }

    /// The page numbers of the extent, ascending.
    package var pages: Range<UInt64> { first..<first + UInt64(count) }

    package var description: String { count == 1 ? "page \(first)" : "pages \(first)...\(first + UInt64(count) - 1)" }
}
