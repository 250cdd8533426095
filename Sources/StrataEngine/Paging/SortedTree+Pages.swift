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
            pages.kept.same.insert(extent.first)
            return extent
        }
        let kind: PageKind
        let image: [UInt8]
        if node.isLeaf {
            let entries = node.entries
            var measured: [UInt8]?
            if let kept = writeDelta(of: node, entries, coding, into: &pages, loader: loader, image: &measured) {
                return kept
            }
            kind = .treeLeaf
            image = measured ?? leafImage(entries, coding)
        } else {
            kind = .treeBranch
            let extents = node.children.map { write($0, coding, into: &pages, loader: loader) }
            if let kept = keepImage(of: node, childExtents: extents, into: &pages, loader: loader) { return kept }
            var writer = ByteWriter(capacity: 1024)
            writer.writeCount(node.children.count)
            for key in node.keys { Coding.write(key, to: &writer) }
            for (child, extent) in zip(node.children, extents) {
                writer.writeVarint(extent.first)
                writer.writeVarint(UInt64(extent.count))
                writer.writeCount(child.count)
            }
            image = writer.bytes
        }
        let extent = pages.place(image, kind: kind)
        let imageBytes = image.count
        pages.written.append { file, cache in
            node.recordWritten(at: extent, delta: nil, imageBytes: imageBytes, loader: loader.loader(file: file, cache: cache))
            // The leaf's rows as a read of its page would give them: packed column by column.
            if Value.self == Row.self { node.replaceResidentValues(Node.repackedRows) }
        }
        return extent
    }

    /// A leaf's image: its entries, each written by `Coding`.
    static func leafImage<Coding: TreeEntryCoding>(
        _ entries: (keys: [Key], values: [Value]), _ coding: Coding.Type
    ) -> [UInt8] where Coding.Key == Key, Coding.Value == Value {
        var writer = ByteWriter(capacity: 4096)
        writer.writeCount(entries.keys.count)
        for index in entries.keys.indices {
            Coding.write(entries.keys[index], to: &writer)
            Coding.write(value: entries.values[index], to: &writer)
        }
        return writer.bytes
    }

    /// A delta this small is written without measuring the leaf's image against it.
    private static var smallDeltaBytes: Int { 64 }

    /// The largest delta written for a leaf whose image takes `image` bytes and whose delta grew by
    /// `growth` bytes since the last checkpoint; past it the leaf is written whole.
    ///
    /// A leaf's delta is written again, with its next changes, by every checkpoint until the leaf
    /// is written whole. A leaf whose delta grows by `g` bytes per checkpoint and is written whole
    /// at a delta of `T` bytes costs about `T/2 + image·g/T` bytes per checkpoint over that cycle:
    /// least at `T = √(2·image·g)` (about 430 bytes for a 7.8 KB leaf that gains one changed
    /// column, 12 bytes, per checkpoint; about a quarter of the image when 20 rows change each
    /// time). The bound is never more than a quarter of the image, nor less than
    /// ``smallDeltaBytes``.
    private static func wholeLeafThreshold(image: Int, growth: Int) -> Int {
        let balanced = Int((2 * Double(image) * Double(Swift.max(1, growth))).squareRoot())
        return Swift.max(smallDeltaBytes, Swift.min(image / 4, balanced))
    }

    /// The page of `leaf`'s base (the paged leaf it was cloned from) with `leaf` (whose entries
    /// are `entries`) written as a delta of that page's image (see ``LeafDelta``), or nil when the
    /// leaf is to be written whole: it has no base, the base no longer stands for its page as the
    /// previous checkpoint left it (a checkpoint since replaced it, a compaction replaced the file,
    /// or the delta directory disagrees), the previous delta cannot be read, or the delta would
    /// pass ``wholeLeafThreshold(image:growth:)`` (or a quarter of the image's pages). A
    /// delta of more than ``smallDeltaBytes`` is measured against the image, which is left in
    /// `image` for the whole write.
    private static func writeDelta<Coding: TreeEntryCoding>(
        of leaf: Node, _ entries: (keys: [Key], values: [Value]), _ coding: Coding.Type,
        into pages: inout CheckpointPages, loader: PendingLoader, image: inout [UInt8]?
    ) -> PageExtent? where Coding.Key == Key, Coding.Value == Value {
        guard let file = pages.deltaSource, let base = leaf.base, !base.isSuperseded, let extent = base.extent,
              base.fileIdentity == file.identity, base.delta === pages.previousDeltas[extent.first],
              !pages.kept.same.contains(extent.first),
              !pages.kept.reused.contains(extent.first) else { return nil }
        var previous: [(key: Key, shape: LeafDelta<Coding>.Shape)] = []
        if let handle = base.delta {
            // A delta that cannot be read is not composed: the leaf, in memory, is written whole.
            guard let record = try? handle.read(from: file),
                  let shapes = try? LeafDelta<Coding>.shapes(of: record.bytes, origin: file.path,
                                                             originOffset: record.ref.fileOffset(pageSize: file.pageSize))
            else { return nil }
            previous = shapes
        }
        let capacity = pages.layout.payloadCapacity
        let limit = Swift.min(capacity, Int(extent.count) * capacity / 4)
        // A base the cache evicted is read without being admitted again when the cache is full:
        // a checkpoint after updates spread over a large store would otherwise bring back a leaf
        // per changed leaf, evicting what readers use.
        let baseEntries = base.entriesReadThrough() ?? base.entries
        guard let record = LeafDelta<Coding>.compose(previous: previous, base: baseEntries, current: entries,
                                                     limit: limit) else { return nil }
        if record.count > smallDeltaBytes {
            let whole = leafImage(entries, coding)
            image = whole
            // What the delta gains per checkpoint: its growth since the last one, or its bytes per
            // change when it did not grow (the same entries changed again).
            let growth = Swift.max(record.count - (base.delta?.ref.length ?? 0),
                                   record.count / Swift.max(1, LeafDelta<Coding>.changeCount(of: record)))
            guard record.count <= wholeLeafThreshold(image: whole.count, growth: growth) else { return nil }
        }
        pages.kept.reused.insert(extent.first)
        let delta = record.isEmpty ? nil : LeafDeltaHandle(pages.placeDelta(record))
        pages.deltaUpdates[extent.first] = .some(delta)
        let imageBytes = Int(extent.count) * capacity * 3 / 4
        pages.written.append { file, cache in
            leaf.recordWritten(at: extent, delta: delta, imageBytes: imageBytes, loader: loader.loader(file: file, cache: cache))
            if Value.self == Row.self { leaf.replaceResidentValues(Node.repackedRows) }
        }
        return extent
    }

    /// The page of `branch`'s base when the branch's image would come out as the base's (the
    /// same separators, and children at the same pages with the same counts: a branch above
    /// leaves written as deltas); nil when the branch is to be written.
    private static func keepImage(
        of branch: Node, childExtents: [PageExtent], into pages: inout CheckpointPages, loader: PendingLoader
    ) -> PageExtent? {
        guard let file = pages.deltaSource, let base = branch.base, !base.isSuperseded, let extent = base.extent,
              base.fileIdentity == file.identity, !pages.kept.same.contains(extent.first),
              !pages.kept.reused.contains(extent.first) else { return nil }
        let baseChildren = base.children, children = branch.children
        guard baseChildren.count == children.count, base.keys == branch.keys else { return nil }
        for index in children.indices {
            guard baseChildren[index].extent == childExtents[index],
                  baseChildren[index].count == children[index].count else { return nil }
        }
        pages.kept.reused.insert(extent.first)
        pages.written.append { file, cache in
            branch.recordWritten(at: extent, delta: nil, imageBytes: 0, loader: loader.loader(file: file, cache: cache))
        }
        return extent
    }

    /// Adds to `freed` the pages of this tree (the one the previous checkpoint wrote) that the
    /// new checkpoint no longer reaches: every node's extent down to the subtrees the new
    /// checkpoint kept as they are (`kept.same`), except the pages it reuses for changed nodes
    /// (`kept.reused`: leaves written as deltas, branches whose image stayed), and marks every
    /// node it passes superseded. The replaced leaves (freed, or whose delta is replaced) go to
    /// `leaves` (weakly, without reading them): once the checkpoint is durable and the previous
    /// one's snapshot released, those still held by an older snapshot are read into memory for
    /// good (see ``FreedLeaf``). The branches passed are read by this walk (to find their
    /// children), and branches stay in memory.
    func collectReplacedPages(kept: KeptPages, into freed: inout [UInt64], leaves: inout [FreedLeaf]) {
        var leafDepth = 0
        var node = root
        while !node.isLeaf {
            node = node.children[0]
            leafDepth += 1
        }
        Self.collect(root, depth: 0, leafDepth: leafDepth, kept: kept, into: &freed, leaves: &leaves)
    }

    private static func collect(
        _ node: Node, depth: Int, leafDepth: Int, kept: KeptPages, into freed: inout [UInt64],
        leaves: inout [FreedLeaf]
    ) {
        if let extent = node.extent {
            if kept.same.contains(extent.first) { return }
            // Replaced, by a node written elsewhere (the pages are freed) or kept at this page with
            // another delta (or under a branch whose image stayed): either way the file no longer
            // holds this node as it is, and a clone of it is written whole.
            node.markSuperseded()
            if !kept.reused.contains(extent.first) { freed.append(contentsOf: extent.pages) }
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
        deltas: [UInt64: LeafDeltaHandle] = [:], check: @escaping @Sendable (Value) -> Bool = { _ in true }
    ) -> SortedTree where Coding.Key == Key, Coding.Value == Value {
        let loader = PageLoader(file: file, coding: coding, cache: cache, deltas: deltas, check: check)
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
        _ root: PagedTreeRoot, _ coding: Coding.Type, in file: PageFile, deltas: [UInt64: LeafDeltaHandle] = [:],
        reached: inout Set<UInt64>, check: @escaping @Sendable (Value) -> Bool = { _ in true }
    ) throws where Coding.Key == Key, Coding.Value == Value {
        var damage = DamageCollector(stopsAtFirst: true, pageFile: file.path, pageSize: file.pageSize)
        try verifyPages(root, coding, in: file, deltas: deltas, reached: &reached, damage: &damage, structure: nil,
                        check: check)
    }

    /// Reads and checks every page of the tree rooted at `root` in `file`, as a stub read would
    /// (with the same `check` of every value), keeping nothing; adds every page to `reached` and
    /// every damaged or malformed node, page reached twice or tree deeper than 32 levels to
    /// `damage` (as damage to `structure`), skipping what is below it.
    ///
    /// - Throws: what `damage` throws (see ``DamageCollector/record(_:in:)``).
    /// - Complexity: O(n) in the tree's pages.
    static func verifyPages<Coding: TreeEntryCoding>(
        _ root: PagedTreeRoot, _ coding: Coding.Type, in file: PageFile, deltas: [UInt64: LeafDeltaHandle] = [:],
        reached: inout Set<UInt64>, damage: inout DamageCollector, structure: String?,
        check: @escaping @Sendable (Value) -> Bool = { _ in true }
    ) throws where Coding.Key == Key, Coding.Value == Value {
        let loader = PageLoader(file: file, coding: coding, cache: nil, deltas: deltas, check: check)
        var pending = [(root.extent, root.count, 0)]
        nodes: while let (extent, count, depth) = pending.popLast() {
            guard depth < 32 else {
                let error = StrataError(.corruptFile, "a tree in \(file.path) is deeper than 32 levels at \(extent)",
                                        path: file.path, offset: extent.first * UInt64(file.pageSize))
                try damage.record(error, in: structure)
                continue
            }
            for page in extent.pages where !reached.insert(page).inserted {
                try damage.record(StrataError(.corruptFile, "page \(page) of \(file.path) is reached twice",
                                              path: file.path, offset: page * UInt64(file.pageSize)),
                                  in: structure)
                continue nodes
            }
            let node: Node
            do {
                node = try loader.read(extent, delta: loader.delta(ofLeafAt: extent.first), count).node
            } catch {
                try damage.record(error, in: structure)
                continue
            }
            guard !node.isLeaf else { continue }
            // Children pushed last to first: the walk, and the damage it lists, go in key order.
            for child in node.children.reversed() {
                if let childExtent = child.extent { pending.append((childExtent, child.count, depth + 1)) }
            }
        }
    }

    /// The memory a leaf of `entries` entries whose image takes `imageBytes` is estimated to take
    /// once decoded (see ``PageLoader/estimatedResidentBytes(imageBytes:entries:)``).
    static func estimatedResidentBytes(imageBytes: Int, entries: Int) -> Int {
        let arrays = 2 * 32 + entries * (MemoryLayout<Key>.stride + MemoryLayout<Value>.stride)
        return imageBytes * 5 / 2 + arrays + 128
    }

    /// Reads the nodes of one paged tree from its page file (see ``Node``).
    final class PageLoader: Sendable {
        let file: PageFile
        /// Where the leaves read are admitted (nil: they stay resident). Weak: the cache holds the
        /// leaves, which hold their loader.
        weak let cache: NodeCache?
        private let readKey: @Sendable (inout ByteReader) throws -> Key
        private let readLeafEntries: @Sendable (inout ByteReader, Int) throws -> (keys: [Key], values: [Value])
        private let applyDelta: @Sendable ([UInt8], [Key], [Value], String, UInt64) throws -> (keys: [Key], values: [Value])
        private let check: @Sendable (Value) -> Bool
        /// The deltas of the leaves whose stubs this loader makes from their parents' pages: the
        /// delta directory of the checkpoint the file was opened at (see ``DeltaDirectory``).
        private let deltas: [UInt64: LeafDeltaHandle]

        init<Coding: TreeEntryCoding>(
            file: PageFile, coding: Coding.Type, cache: NodeCache?, deltas: [UInt64: LeafDeltaHandle] = [:],
            check: @escaping @Sendable (Value) -> Bool
        ) where Coding.Key == Key, Coding.Value == Value {
            self.file = file
            self.cache = cache
            readKey = { try Coding.readKey(from: &$0) }
            readLeafEntries = { try Coding.readLeafEntries($1, from: &$0) }
            applyDelta = { try LeafDelta<Coding>.apply($0, to: $1, $2, origin: $3, originOffset: $4) }
            self.deltas = deltas
            self.check = check
        }

        /// The delta of the leaf whose first page is `page`, as the directory the file was opened
        /// with names it.
        func delta(ofLeafAt page: UInt64) -> LeafDeltaHandle? { deltas.isEmpty ? nil : deltas[page] }

        private func corrupt(_ extent: PageExtent, _ why: String) -> StrataError {
            StrataError(.corruptFile, "the tree node at \(extent) of \(file.path) is damaged: \(why)", path: file.path,
                        offset: extent.first * UInt64(file.pageSize))
        }

        /// The memory a leaf of `entries` entries whose image takes `imageBytes` is estimated to
        /// take once decoded: the arrays of keys and values, and the heap the values refer to
        /// (strings, a row's values array), taken as 2.5 times the image (measured: a 1M-row
        /// table of six columns takes about that once decoded, allocator overhead included).
        func estimatedResidentBytes(imageBytes: Int, entries: Int) -> Int {
            SortedTree.estimatedResidentBytes(imageBytes: imageBytes, entries: entries)
        }

        /// The node of `count` entries at `extent` (with `delta` applied, for a leaf), its children
        /// stubs, and the memory it is estimated to take (see
        /// ``estimatedResidentBytes(imageBytes:entries:)``).
        ///
        /// - Throws: ``StrataError/Code/corruptFile`` naming the file and page when a page is
        ///   damaged or of the wrong kind, the node or its delta is malformed, its keys are out of
        ///   order, a value fails the tree's check, or the counts disagree with `count`.
        func read(_ extent: PageExtent, delta: LeafDeltaHandle?, _ count: Int) throws -> (node: Node, bytes: Int) {
            cache?.noteRead()
            let (kind, image) = try file.readImage(extent, kinds: [.treeLeaf, .treeBranch])
            let record = try delta.map { try $0.read(from: file) }
            let node: Node = try image.withUnsafeBytes { raw in
                var reader = ByteReader(raw, origin: file.path, originOffset: extent.first * UInt64(file.pageSize))
                let node: Node
                if kind == .treeLeaf {
                    node = try readLeaf(&reader, extent, delta: record)
                } else {
                    guard delta == nil else { throw corrupt(extent, "the delta directory names a branch") }
                    node = try readBranch(&reader, extent)
                }
                guard reader.isAtEnd else { throw corrupt(extent, "trailing bytes") }
                guard node.count == count else {
                    throw corrupt(extent, "it holds \(node.count) entries where its parent says \(count)")
                }
                node.extent = extent
                return node
            }
            return (node, estimatedResidentBytes(imageBytes: image.count, entries: node.count))
        }

        private func readLeaf(
            _ reader: inout ByteReader, _ extent: PageExtent, delta record: (ref: LeafDeltaRef, bytes: [UInt8])?
        ) throws -> Node {
            var count = try reader.readCount(minimumElementSize: 2)
            guard count <= SortedTree.leafCapacity else { throw corrupt(extent, "\(count) entries in a leaf") }
            var (keys, values) = try readLeafEntries(&reader, count)
            if let record {
                (keys, values) = try applyDelta(record.bytes, keys, values, file.path,
                                                record.ref.fileOffset(pageSize: file.pageSize))
                count = keys.count
                guard count <= SortedTree.leafCapacity else {
                    throw corrupt(extent, "its delta makes \(count) entries of a leaf")
                }
                // Patched rows hold values of their own: packed again, as a read without a delta
                // leaves them.
                if Value.self == Row.self, let packed = Node.repackedRows(values) { values = packed }
            }
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
