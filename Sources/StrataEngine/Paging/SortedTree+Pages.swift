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
    /// `pages.rewritesAll`) into `pages` and returns where the root is.
    func writeChangedNodes<Coding: TreeEntryCoding>(
        _ coding: Coding.Type, into pages: inout CheckpointPages
    ) -> PagedTreeRoot where Coding.Key == Key, Coding.Value == Value {
        PagedTreeRoot(extent: Self.write(root, coding, into: &pages), count: root.count)
    }

    private static func write<Coding: TreeEntryCoding>(
        _ node: Node, _ coding: Coding.Type, into pages: inout CheckpointPages
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
            let extents = node.children.map { write($0, coding, into: &pages) }
            writer.writeCount(node.children.count)
            for key in node.keys { Coding.write(key, to: &writer) }
            for (child, extent) in zip(node.children, extents) {
                writer.writeVarint(extent.first)
                writer.writeVarint(UInt64(extent.count))
                writer.writeCount(child.count)
            }
        }
        let extent = pages.place(writer.bytes, kind: kind)
        pages.written.append { node.extent = extent }
        return extent
    }

    /// Adds to `freed` the pages of this tree (the one the previous checkpoint wrote) that the
    /// new checkpoint no longer reaches: every node's extent down to the subtrees whose root
    /// the new checkpoint kept (`kept`: first pages).
    func collectReplacedPages(kept: Set<UInt64>, into freed: inout [UInt64]) {
        Self.collect(root, kept: kept, into: &freed)
    }

    private static func collect(_ node: Node, kept: Set<UInt64>, into freed: inout [UInt64]) {
        if let extent = node.extent {
            if kept.contains(extent.first) { return }
            freed.append(contentsOf: extent.pages)
        }
        if !node.isLeaf { for child in node.children { collect(child, kept: kept, into: &freed) } }
    }

    /// Reads the tree rooted at `root` from `file`, every node resident, each remembering its
    /// extent; adds every page it reads to `reached`.
    ///
    /// - Throws: ``StrataError/Code/corruptFile`` naming the file and page when a page is
    ///   damaged or of the wrong kind, a node is malformed, keys are out of order, counts
    ///   disagree, the tree is deeper than 32 levels, or a page is reached twice.
    static func load<Coding: TreeEntryCoding>(
        _ root: PagedTreeRoot, _ coding: Coding.Type, from file: PageFile, reached: inout Set<UInt64>
    ) throws -> SortedTree where Coding.Key == Key, Coding.Value == Value {
        var loader = Loader<Coding>(file: file)
        let node = try loader.load(root.extent, expectedCount: root.count, depth: 0, reached: &reached)
        var tree = SortedTree()
        tree.root = node.node
        return tree
    }

    private struct Loader<Coding: TreeEntryCoding> where Coding.Key == Key, Coding.Value == Value {
        let file: PageFile
        static var maximumDepth: Int { 32 }

        func corrupt(_ extent: PageExtent, _ why: String) -> StrataError {
            StrataError(.corruptFile, "the tree node at \(extent) of \(file.path) is damaged: \(why)", path: file.path,
                        offset: extent.first * UInt64(file.pageSize))
        }

        /// The node at `extent` with its smallest and largest keys (nil when it is empty).
        mutating func load(
            _ extent: PageExtent, expectedCount: Int, depth: Int, reached: inout Set<UInt64>
        ) throws -> (node: Node, first: Key?, last: Key?) {
            guard depth < Self.maximumDepth else { throw corrupt(extent, "the tree is deeper than \(Self.maximumDepth)") }
            for page in extent.pages where !reached.insert(page).inserted {
                throw corrupt(extent, "page \(page) is reached twice")
            }
            let (kind, image) = try file.readImage(extent, kinds: [.treeLeaf, .treeBranch])
            let leaf = kind == .treeLeaf
            return try image.withUnsafeBytes { raw in
                var reader = ByteReader(raw, origin: file.path, originOffset: extent.first * UInt64(file.pageSize))
                let result = leaf ? try decodeLeaf(&reader, extent) : try decodeBranch(&reader, extent, depth, &reached)
                guard reader.isAtEnd else { throw corrupt(extent, "trailing bytes") }
                guard result.node.count == expectedCount, depth == 0 || expectedCount > 0 else {
                    throw corrupt(extent, "it holds \(result.node.count) entries where its parent says \(expectedCount)")
                }
                result.node.extent = extent
                return result
            }
        }

        private func decodeLeaf(_ reader: inout ByteReader, _ extent: PageExtent) throws -> (node: Node, first: Key?, last: Key?) {
            let count = try reader.readCount(minimumElementSize: 2)
            guard count <= SortedTree.leafCapacity else { throw corrupt(extent, "\(count) entries in a leaf") }
            var keys: [Key] = [], values: [Value] = []
            keys.reserveCapacity(SortedTree.leafCapacity + 1)
            values.reserveCapacity(SortedTree.leafCapacity + 1)
            for _ in 0..<count {
                let key = try Coding.readKey(from: &reader)
                if let previous = keys.last, !(previous < key) { throw corrupt(extent, "keys out of order") }
                keys.append(key)
                values.append(try Coding.readValue(from: &reader))
            }
            return (Node(isLeaf: true, count: count, keys: keys, values: values), keys.first, keys.last)
        }

        private mutating func decodeBranch(
            _ reader: inout ByteReader, _ extent: PageExtent, _ depth: Int, _ reached: inout Set<UInt64>
        ) throws -> (node: Node, first: Key?, last: Key?) {
            let childCount = try reader.readCount(minimumElementSize: 3)
            guard (1...SortedTree.branchCapacity).contains(childCount) else {
                throw corrupt(extent, "\(childCount) children in a branch")
            }
            var separators: [Key] = []
            separators.reserveCapacity(SortedTree.branchCapacity)
            for _ in 0..<(childCount - 1) {
                let key = try Coding.readKey(from: &reader)
                if let previous = separators.last, !(previous < key) { throw corrupt(extent, "separators out of order") }
                separators.append(key)
            }
            var references: [(PageExtent, Int)] = []
            for _ in 0..<childCount {
                let first = try reader.readVarint()
                guard let pages = UInt32(exactly: try reader.readVarint()), pages >= 1,
                      let count = Int(exactly: try reader.readVarint()) else {
                    throw corrupt(extent, "a child reference is out of range")
                }
                references.append((PageExtent(first: first, count: pages), count))
            }
            var children: [Node] = []
            children.reserveCapacity(SortedTree.branchCapacity + 1)
            var total = 0
            var first: Key?, last: Key?
            for (slot, (childExtent, count)) in references.enumerated() {
                let child = try load(childExtent, expectedCount: count, depth: depth + 1, reached: &reached)
                // Child `slot` holds keys in separators[slot - 1] ..< separators[slot].
                if slot > 0, let low = child.first, low < separators[slot - 1] {
                    throw corrupt(extent, "child \(slot) holds a key below its range")
                }
                if slot < separators.count, let high = child.last, !(high < separators[slot]) {
                    throw corrupt(extent, "child \(slot) holds a key above its range")
                }
                guard count > 0 else { throw corrupt(extent, "child \(slot) is empty") }
                total += count
                first = first ?? child.first
                last = child.last ?? last
                children.append(child.node)
            }
            return (Node(isLeaf: false, count: total, keys: separators, children: children), first, last)
        }
    }
}

/// Where a paged tree's root is and how many entries the tree holds.
struct PagedTreeRoot: Hashable, Sendable {
    /// The root node's extent.
    var extent: PageExtent
    /// The number of entries.
    var count: Int
}
