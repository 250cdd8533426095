import StrataStorage
import StrataSupport

/// How a ``SortedTree`` node is written to pages and read back.
///
/// A node's image (one ``PageExtent``: a ``PageKind/treeLeaf`` or ``PageKind/treeBranch`` page,
/// followed by ``PageKind/overflow`` pages when the image is larger than one page):
///
/// ```
/// leaf:    varint n (entries) | n × (key, value)           (TreeEntryCoding)
/// branch:  varint n (children, at least 1) | n − 1 separator keys
///          | n × (varint first page, varint page count, varint entries below)
/// ```
/// A tree is referred to by its root's extent and entry count (see ``PagedTreeRoot``). Nodes are
/// written bottom-up, only those that changed since the last checkpoint (``SortedTree/Node/extent``
/// is nil); an unchanged subtree is referred to where it already is.
extension SortedTree {
    /// Writes the nodes of this tree that changed since the last checkpoint (every node when
    /// `pages.rewritesAll`) into `pages` and returns where the root is. Once the checkpoint is
    /// durable, each written node becomes paged, read back through a loader made with `check`
    /// (see ``paged(_:_:in:cache:check:)``).
    func writeChangedNodes<Coding: TreeEntryCoding>(
        _ coding: Coding.Type, into pages: inout CheckpointPages,
        check: @escaping @Sendable (Value) -> Bool = { _ in true }
    ) -> PagedTreeRoot where Coding.Key == Key, Coding.Value == Value {
        let loader = PendingLoader { file, cache in PageLoader(file: file, coding: coding, cache: cache, check: check) }
        return PagedTreeRoot(extent: Self.write(root, coding, into: &pages, loader: loader), count: root.count)
    }

    /// The loader of the nodes one checkpoint writes into one tree, made once the file is known.
    private final class PendingLoader {
        private let make: (PageFile, NodeCache?) -> PageLoader
        private var made: PageLoader?

        init(_ make: @escaping (PageFile, NodeCache?) -> PageLoader) { self.make = make }

        func loader(file: PageFile, cache: NodeCache?) -> PageLoader {
            if let made, made.file === file { return made }
            let loader = make(file, cache)
            made = loader
            return loader
        }
    }

    private static func write<Coding: TreeEntryCoding>(
        _ node: Node, _ coding: Coding.Type, into pages: inout CheckpointPages, loader: PendingLoader
    ) -> PageExtent where Coding.Key == Key, Coding.Value == Value {
        if !pages.rewritesAll, let extent = node.extent {
            pages.kept.insert(extent.first)
            return extent
        }
        var writer = ByteWriter(capacity: 4096)
        let kind: PageKind
        if node.isLeaf {
            kind = .treeLeaf
            writer.writeCount(node.keys.count)
            for index in node.keys.indices {
                Coding.write(node.keys[index], to: &writer)
                Coding.write(value: node.values[index], to: &writer)
            }
        } else {
            kind = .treeBranch
            let extents = node.children.map { write($0, coding, into: &pages, loader: loader) }
            writer.writeCount(node.children.count)
            for key in node.keys { Coding.write(key, to: &writer) }
            for (child, extent) in zip(node.children, extents) {
                writer.writeVarint(extent.first)
                writer.writeVarint(UInt64(extent.count))
                writer.writeCount(child.count)
            }
        }
        let extent = pages.place(writer.bytes, kind: kind)
        let imageBytes = writer.count
        pages.written.append { file, cache in
            node.recordWritten(at: extent, imageBytes: imageBytes, loader: loader.loader(file: file, cache: cache))
            // The leaf's rows as a read of its page would give them: packed column by column.
            if Value.self == Row.self { node.replaceResidentValues(Node.repackedRows) }
        }
        return extent
    }

    /// Adds to `freed` the pages of this tree (the one the previous checkpoint wrote) that the
    /// new checkpoint no longer reaches: every node's extent down to the subtrees whose root
    /// the new checkpoint kept (`kept`: first pages). The freed leaves go to `leaves` (weakly,
    /// without reading them): once the checkpoint is durable and the previous one's snapshot
    /// released, those still held by an older snapshot are read into memory for good (see
    /// ``FreedLeaf``). The freed branches are read by this walk (to find their children), and
    /// branches stay in memory.
    func collectReplacedPages(kept: Set<UInt64>, into freed: inout [UInt64], leaves: inout [FreedLeaf]) {
        var leafDepth = 0
        var node = root
        while !node.isLeaf {
            node = node.children[0]
            leafDepth += 1
        }
        Self.collect(root, depth: 0, leafDepth: leafDepth, kept: kept, into: &freed, leaves: &leaves)
    }

    private static func collect(
        _ node: Node, depth: Int, leafDepth: Int, kept: Set<UInt64>, into freed: inout [UInt64],
        leaves: inout [FreedLeaf]
    ) {
        if let extent = node.extent {
            if kept.contains(extent.first) { return }
            freed.append(contentsOf: extent.pages)
        }
        // Every leaf of a tree is at the same depth: a leaf is not read to learn that it is one.
        guard depth < leafDepth else {
            leaves.append(FreedLeaf(node: node))
            return
        }
        for child in node.children {
            collect(child, depth: depth + 1, leafDepth: leafDepth, kept: kept, into: &freed, leaves: &leaves)
        }
    }

    /// The tree rooted at `root` in `file`, read lazily: its root is a stub, and each node's page
    /// is read (and checked) the first time the node is used, its children becoming stubs in turn.
    /// Leaves read are admitted to `cache`, which may evict them again. `check` vets every value
    /// read (a row's value count against its schema).
    ///
    /// - Complexity: O(1); reads nothing.
    static func paged<Coding: TreeEntryCoding>(
        _ root: PagedTreeRoot, _ coding: Coding.Type, in file: PageFile, cache: NodeCache?,
        check: @escaping @Sendable (Value) -> Bool = { _ in true }
    ) -> SortedTree where Coding.Key == Key, Coding.Value == Value {
        let loader = PageLoader(file: file, coding: coding, cache: cache, check: check)
        var tree = SortedTree()
        tree.root = Node(stubAt: root.extent, count: root.count, loader: loader)
        return tree
    }

    /// Reads and checks every page of the tree rooted at `root` in `file`, as a stub read would
    /// (with the same `check` of every value), keeping nothing; adds every page to `reached`.
    ///
    /// - Throws: ``StrataError/Code/corruptFile`` naming the file and page for the first damaged
    ///   or malformed node, a page reached twice, or a tree deeper than 32 levels.
    static func verifyPages<Coding: TreeEntryCoding>(
        _ root: PagedTreeRoot, _ coding: Coding.Type, in file: PageFile, reached: inout Set<UInt64>,
        check: @escaping @Sendable (Value) -> Bool = { _ in true }
    ) throws where Coding.Key == Key, Coding.Value == Value {
        let loader = PageLoader(file: file, coding: coding, cache: nil, check: check)
        var pending = [(root.extent, root.count, 0)]
        while let (extent, count, depth) = pending.popLast() {
            guard depth < 32 else {
                throw StrataError(.corruptFile, "a tree in \(file.path) is deeper than 32 levels at \(extent)",
                                  path: file.path, offset: extent.first * UInt64(file.pageSize))
            }
            for page in extent.pages where !reached.insert(page).inserted {
                throw StrataError(.corruptFile, "page \(page) of \(file.path) is reached twice", path: file.path,
                                  offset: page * UInt64(file.pageSize))
            }
            let node = try loader.read(extent, count).node
            guard !node.isLeaf else { continue }
            for child in node.children {
                if let childExtent = child.extent { pending.append((childExtent, child.count, depth + 1)) }
            }
        }
    }

    /// Reads the nodes of one paged tree from its page file (see ``Node``).
    final class PageLoader: Sendable {
        let file: PageFile
        /// Where the leaves read are admitted (nil: they stay resident). Weak: the cache holds the
        /// leaves, which hold their loader.
        weak let cache: NodeCache?
        private let readKey: @Sendable (inout ByteReader) throws -> Key
        private let readLeafEntries: @Sendable (inout ByteReader, Int) throws -> (keys: [Key], values: [Value])
        private let check: @Sendable (Value) -> Bool

        init<Coding: TreeEntryCoding>(
            file: PageFile, coding: Coding.Type, cache: NodeCache?, check: @escaping @Sendable (Value) -> Bool
        ) where Coding.Key == Key, Coding.Value == Value {
            self.file = file
            self.cache = cache
            readKey = { try Coding.readKey(from: &$0) }
            readLeafEntries = { try Coding.readLeafEntries($1, from: &$0) }
            self.check = check
        }

        private func corrupt(_ extent: PageExtent, _ why: String) -> StrataError {
            StrataError(.corruptFile, "the tree node at \(extent) of \(file.path) is damaged: \(why)", path: file.path,
                        offset: extent.first * UInt64(file.pageSize))
        }

        /// The memory a leaf of `entries` entries whose image takes `imageBytes` is estimated to
        /// take once decoded: the arrays of keys and values, and the heap the values refer to
        /// (strings, a row's values array), taken as 2.5 times the image (measured: a 1M-row
        /// table of six columns takes about that once decoded, allocator overhead included).
        func estimatedResidentBytes(imageBytes: Int, entries: Int) -> Int {
            let arrays = 2 * 32 + entries * (MemoryLayout<Key>.stride + MemoryLayout<Value>.stride)
            return imageBytes * 5 / 2 + arrays + 128
        }

        /// The node of `count` entries at `extent`, its children stubs, and the memory it is
        /// estimated to take (see ``estimatedResidentBytes(imageBytes:entries:)``).
        ///
        /// - Throws: ``StrataError/Code/corruptFile`` naming the file and page when a page is
        ///   damaged or of the wrong kind, the node is malformed, its keys are out of order, a
        ///   value fails the tree's check, or the counts disagree with `count`.
        func read(_ extent: PageExtent, _ count: Int) throws -> (node: Node, bytes: Int) {
            cache?.noteRead()
            let (kind, image) = try file.readImage(extent, kinds: [.treeLeaf, .treeBranch])
            let node: Node = try image.withUnsafeBytes { raw in
                var reader = ByteReader(raw, origin: file.path, originOffset: extent.first * UInt64(file.pageSize))
                let node = kind == .treeLeaf ? try readLeaf(&reader, extent) : try readBranch(&reader, extent)
                guard reader.isAtEnd else { throw corrupt(extent, "trailing bytes") }
                guard node.count == count else {
                    throw corrupt(extent, "it holds \(node.count) entries where its parent says \(count)")
                }
                node.extent = extent
                return node
            }
            return (node, estimatedResidentBytes(imageBytes: image.count, entries: node.count))
        }

        private func readLeaf(_ reader: inout ByteReader, _ extent: PageExtent) throws -> Node {
            let count = try reader.readCount(minimumElementSize: 2)
            guard count <= SortedTree.leafCapacity else { throw corrupt(extent, "\(count) entries in a leaf") }
            let (keys, values) = try readLeafEntries(&reader, count)
            for index in keys.indices {
                if index > 0, !(keys[index - 1] < keys[index]) { throw corrupt(extent, "keys out of order") }
                guard check(values[index]) else { throw corrupt(extent, "a value does not fit its tree (\(keys[index]))") }
            }
            return Node(isLeaf: true, count: count, keys: keys, values: values)
        }

        private func readBranch(_ reader: inout ByteReader, _ extent: PageExtent) throws -> Node {
            let childCount = try reader.readCount(minimumElementSize: 3)
            guard (1...SortedTree.branchCapacity).contains(childCount) else {
                throw corrupt(extent, "\(childCount) children in a branch")
            }
            var separators: [Key] = []
            separators.reserveCapacity(SortedTree.branchCapacity)
            for _ in 0..<(childCount - 1) {
                let key = try readKey(&reader)
                if let previous = separators.last, !(previous < key) { throw corrupt(extent, "separators out of order") }
                separators.append(key)
            }
            var children: [Node] = []
            children.reserveCapacity(SortedTree.branchCapacity + 1)
            var total = 0
            for slot in 0..<childCount {
                let first = try reader.readVarint()
                guard let pages = UInt32(exactly: try reader.readVarint()), pages >= 1,
                      let count = Int(exactly: try reader.readVarint()), count > 0,
                      first.addingReportingOverflow(UInt64(pages)).overflow == false else {
                    throw corrupt(extent, "the reference to child \(slot) is out of range")
                }
                let (sum, overflow) = total.addingReportingOverflow(count)
                guard !overflow else { throw corrupt(extent, "its children's counts overflow") }
                total = sum
                children.append(Node(stubAt: PageExtent(first: first, count: pages), count: count, loader: self))
            }
            return Node(isLeaf: false, count: total, keys: separators, children: children)
        }
    }
}

/// A leaf whose page a checkpoint freed, held weakly until the checkpoint is durable and the
/// previous checkpoint's snapshot is released. A leaf still alive then is held by an older
/// snapshot (pinned, frozen, or a reader's), which may read it after a later checkpoint reuses
/// its page: ``keepResidentIfHeld()`` reads it now (before any later checkpoint can run) and keeps
/// it in memory for as long as it lives.
struct FreedLeaf {
    weak var node: (any CachedNode)?

    /// Reads the leaf into memory for good if anything still holds it.
    func keepResidentIfHeld() { node?.keepResident() }
}

/// Where a paged tree's root is and how many entries the tree holds.
struct PagedTreeRoot: Hashable, Sendable {
    /// The root node's extent.
    var extent: PageExtent
    /// The number of entries.
    var count: Int
}
