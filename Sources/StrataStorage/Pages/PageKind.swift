/// What a page of a ``PageFile`` holds: byte 4 of every page's frame (see ``PageFrame``).
///
/// An open set of one-byte codes, so later layers add kinds without breaking a `switch`:
///
/// | code | kind |
/// |---|---|
/// | 0 | never valid (a page of zeros, never written) |
/// | 1 | ``headerSlot``: page 0 or 1 |
/// | 2 | ``treeLeaf`` |
/// | 3 | ``treeBranch`` |
/// | 4 | ``overflow``: the continuation of a value too large for one page |
/// | 5 | ``freeList`` |
/// | 6 | ``catalog``: the engine's list of tables and their roots |
/// | 7 | ``leafDeltas``: the changes of tree leaves since their page was written (format 2) |
/// | 8 | ``deltaDirectory``: which leaf's changes are where (format 2) |
/// | 9–255 | unassigned: reserved for later formats |
///
/// The page file itself only tells header slots from other pages; the layers above check that
/// a page they follow a pointer to has the kind they expect.
package struct PageKind: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The code stored on disk.
    package var rawValue: UInt8

    /// Creates a kind from its on-disk code.
    package init(rawValue: UInt8) { self.rawValue = rawValue }

    /// One of the two header slots (pages 0 and 1); see ``PageFileHeader``.
    package static let headerSlot = PageKind(rawValue: 1)
    /// A leaf of a B+tree.
    package static let treeLeaf = PageKind(rawValue: 2)
    /// An inner node of a B+tree.
    package static let treeBranch = PageKind(rawValue: 3)
    /// Part of a value too large to live in the page that refers to it.
    package static let overflow = PageKind(rawValue: 4)
    /// A page of the free-space list.
    package static let freeList = PageKind(rawValue: 5)
    /// The engine's catalog: its tables, their schemas and their trees' roots.
    package static let catalog = PageKind(rawValue: 6)
    /// Changes of tree leaves written by a checkpoint instead of the leaves' whole pages.
    package static let leafDeltas = PageKind(rawValue: 7)
    /// The list of the leaves whose changes are in ``leafDeltas`` pages, and where.
    package static let deltaDirectory = PageKind(rawValue: 8)

    /// The kind's name, or its code when it has none.
    package var description: String {
        switch self {
        case .headerSlot: "header slot"
        case .treeLeaf: "tree leaf"
        case .treeBranch: "tree branch"
        case .overflow: "overflow"
        case .freeList: "free list"
        case .catalog: "catalog"
        case .leafDeltas: "leaf deltas"
        case .deltaDirectory: "delta directory"
        default: "kind \(rawValue)"
        }
    }
}
