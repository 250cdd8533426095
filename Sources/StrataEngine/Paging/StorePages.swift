import StrataStorage
import StrataSupport

/// A store's page file and what its checkpoints need: the snapshot the current header holds
/// (whose tree nodes know their extents), the roots, and the free pages.
///
/// A checkpoint of version v writes only what changed since the previous one: the tree nodes
/// with no extent (new or changed since), bottom-up into free pages (a changed leaf of which
/// little changed as a delta of the page it keeps, see ``LeafDelta``, and a branch whose image
/// stays the same not at all), then the delta directory, the catalog and the free list, then
/// switches the header (see ``PageFile/writeCheckpoint(_:fields:)``). The pages
/// the previous header reaches and the new one does not (the replaced nodes, the previous
/// catalog and free list) become free once the new header is current; before that, nothing
/// the current header reaches is ever written.
///
/// Opening reads the header, the catalog and the free list, nothing else: every tree (rows,
/// primary-key index, secondary indexes, backlinks) starts as a stub root, and each node's page
/// is read and checked (frame, kind, key order, counts) the first time the node is used. A
/// branch then stays in memory; a leaf (read, or written by a checkpoint) is admitted to the
/// store's ``NodeCache``, which evicts leaves when it is over its capacity. A node whose page the
/// new checkpoint frees and that an older snapshot still holds once the previous checkpoint's
/// snapshot is released is read into memory right after the checkpoint (branches by its walk,
/// leaves then) and never evicted again, so such a snapshot never reads a page a later
/// checkpoint reused.
final class StorePages: Sendable {
    /// The page file.
    let file: PageFile
    /// Where the leaves of the store's trees are admitted (nil: they stay resident).
    let cache: NodeCache?
    private let state: LockedValueBox<State>

    private struct State {
        /// The snapshot the current header holds.
        var checkpointed: Snapshot
        /// The current header's roots (nil for a new file's generation 0).
        var roots: StoreCatalog.Roots?
        /// The pages the current header does not reach, ascending.
        var freePages: [UInt64]
        /// The current header's delta directory.
        var deltas = DeltaDirectory()
    }

    private init(file: PageFile, cache: NodeCache?, state: State) {
        self.file = file
        self.cache = cache
        self.state = LockedValueBox(state)
    }

    /// The page size of the page files a store writes (a new store, a conversion, a compaction or
    /// a copy): 4 KiB, as SQLite's, so that a tree node takes the pages its image needs (a leaf of
    /// 64 rows of a few hundred bytes takes three, an index leaf one or two) rather than a whole
    /// 16 KiB page. A file keeps the page size it was written with (its header says which), so
    /// files written with 16 KiB pages go on working until a compaction rewrites them.
    static let pageSize = 4096

    /// The options every store page file is opened with: the cache off, since every node is
    /// resident once read.
    static func options(readOnly: Bool) -> PageFile.Options { PageFile.Options(cacheBytes: 0, readOnly: readOnly) }

    /// Opens the page file `file` (locked by the caller) and returns the snapshot its header holds,
    /// every tree a stub (see ``Table/paged(_:in:cache:)``) whose leaves `cache` bounds.
    ///
    /// - Throws: ``StrataError/Code/invalidFileFormat`` or ``StrataError/Code/corruptFile``
    ///   naming the file and page (see ``PageFile/open(file:options:)``) when the header, the
    ///   catalog or the free list is damaged, also when the current header slot is damaged and the
    ///   other is an older checkpoint whose log is gone (see ``PageFile/damagedCurrentSlot(storePath:)``);
    ///   ``StrataError/Code/fileAccess``.
    static func open(
        file posix: POSIXFile, readOnly: Bool, cache: NodeCache?
    ) throws -> (pages: StorePages, snapshot: Snapshot) {
        let file = try PageFile.open(file: posix, options: options(readOnly: readOnly))
        // The page file is the store's path: its log segments are named after it.
        if let damage = file.damagedCurrentSlot(storePath: file.path) { throw damage }
        // The log segments the header no longer needs are deleted next: the header must be on the disk.
        if !readOnly { try file.makeHeaderDurable() }
        let header = file.header
        guard !header.checkpoint.roots.isEmpty else {
            throw StrataError(.corruptFile, "\(file.path) holds no catalog: it is not a store's page file", path: file.path,
                              offset: 0)
        }
        let roots = try StoreCatalog.Roots.decode(header.checkpoint.roots, path: file.path)
        let catalog = try StoreCatalog.decode(file.readImage(roots.catalog, kind: .catalog), path: file.path,
                                              at: roots.catalog, pageSize: file.pageSize)
        guard catalog.version == header.checkpoint.logVersion else {
            throw StrataError(.corruptFile, "the header of \(file.path) says version \(header.checkpoint.logVersion), "
                                  + "its catalog \(catalog.version)", path: file.path, offset: 0)
        }
        let deltas = try readDeltaDirectory(roots, in: file)
        var snapshot = Snapshot.empty
        snapshot.version = catalog.version
        for entry in catalog.tables {
            try snapshot.installLoadedTable(Table.paged(entry, in: file, cache: cache, deltas: deltas.entries),
                                            path: file.path)
        }
        snapshot.nextTableKey = max(snapshot.nextTableKey, catalog.nextTableKey)
        var free: [UInt64] = []
        if let list = roots.freeList {
            free = try FreePageList.decode(file.readImage(list, kind: .freeList), pageCount: header.checkpoint.pageCount,
                                           path: file.path, at: list)
            var inUse = Set(roots.catalog.pages).union(list.pages).union(deltas.deltaPages())
            if let directory = roots.deltaDirectory { inUse.formUnion(directory.pages) }
            if let page = free.first(where: inUse.contains) {
                throw StrataError(.corruptFile, "page \(page) of \(file.path) is both free and in use", path: file.path)
            }
        }
        let pages = StorePages(file: file, cache: cache,
                               state: State(checkpointed: snapshot, roots: roots, freePages: free, deltas: deltas))
        return (pages, snapshot)
    }

    /// The delta directory `roots` names in `file` (empty when it names none).
    private static func readDeltaDirectory(_ roots: StoreCatalog.Roots, in file: PageFile) throws -> DeltaDirectory {
        guard let extent = roots.deltaDirectory else { return DeltaDirectory() }
        return try DeltaDirectory.decode(file.readImage(extent, kind: .deltaDirectory),
                                         pageCount: file.header.checkpoint.pageCount,
                                         payloadCapacity: file.layout.payloadCapacity, path: file.path, at: extent,
                                         pageSize: file.pageSize)
    }

    /// Reads and checks every page the current header reaches (the catalog, every node of every
    /// tree, the free list), keeping nothing in memory, as an integrity check.
    ///
    /// - Returns: the number of pages in use.
    /// - Throws: ``StrataError/Code/corruptFile`` naming the file and page for the first damaged
    ///   page, malformed node, page reached twice or page both free and in use;
    ///   ``StrataError/Code/fileAccess``.
    func verify() throws -> Int {
        var damage = DamageCollector(stopsAtFirst: true, pageFile: file.path, pageSize: file.pageSize)
        return try Self.verify(file, damage: &damage)
    }

    /// Reads and checks every page the current header of `file` reaches (the catalog, every node
    /// of every tree, the delta directory, the free list), keeping nothing in memory, and records
    /// in `damage` each damaged page, malformed node, page reached twice or page both free and
    /// in use. What a damaged page leads to (a damaged branch's children, every table when the
    /// catalog is damaged) is not reached, so not checked.
    ///
    /// - Returns: the number of pages reached.
    /// - Throws: what `damage` throws (the first damage, for a collector that stops there);
    ///   ``StrataError/Code/fileAccess`` when the file cannot be read.
    /// - Complexity: O(n) in the pages the header reaches.
    static func verify(_ file: PageFile, damage: inout DamageCollector) throws -> Int {
        let header = file.header
        let roots: StoreCatalog.Roots
        let catalog: StoreCatalog
        do {
            roots = try StoreCatalog.Roots.decode(header.checkpoint.roots, path: file.path)
        } catch {
            try damage.record(error, in: "the header's roots")
            return 0
        }
        var reached = Set(roots.catalog.pages)
        do {
            catalog = try StoreCatalog.decode(file.readImage(roots.catalog, kind: .catalog), path: file.path,
                                              at: roots.catalog, pageSize: file.pageSize)
        } catch {
            try damage.record(error, in: "the catalog")
            return reached.count
        }
        var deltas = DeltaDirectory()
        do {
            deltas = try readDeltaDirectory(roots, in: file)
        } catch {
            try damage.record(error, in: "the delta directory")
        }
        for entry in catalog.tables {
            try Table.verifyPages(entry, in: file, deltas: deltas.entries, reached: &reached, damage: &damage)
        }
        // Every delta belongs to a leaf a tree reaches (the trees' reads applied them), and the
        // delta pages and the directory are reached by nothing else.
        if let leaf = deltas.entries.keys.first(where: { !reached.contains($0) }) {
            try damage.record(StrataError(.corruptFile, "the delta directory of \(file.path) names page \(leaf), "
                                              + "which no tree reaches", path: file.path), in: "the delta directory")
        }
        for page in deltas.deltaPages().union(roots.deltaDirectory?.pages ?? 0..<0) where !reached.insert(page).inserted {
            try damage.record(reachedTwice(page, in: file))
        }
        if let list = roots.freeList {
            for page in list.pages where !reached.insert(page).inserted {
                try damage.record(reachedTwice(page, in: file))
            }
            do {
                let free = try FreePageList.decode(file.readImage(list, kind: .freeList),
                                                   pageCount: header.checkpoint.pageCount, path: file.path, at: list)
                if let page = free.first(where: reached.contains) {
                    throw StrataError(.corruptFile, "page \(page) of \(file.path) is both free and in use",
                                      path: file.path)
                }
            } catch {
                try damage.record(error, in: "the free-page list")
            }
        }
        return reached.count
    }

    private static func reachedTwice(_ page: UInt64, in file: PageFile) -> StrataError {
        StrataError(.corruptFile, "page \(page) of \(file.path) is reached twice", path: file.path,
                    offset: page * UInt64(file.pageSize))
    }

    /// Writes a new page file holding `snapshot` at `path` (replacing any file there), for a new
    /// store, an older format's conversion or a compaction, and opens it locked.
    ///
    /// The file is written whole as `<path>.tmp`, synced and renamed into place with the
    /// directory synced (see ``PageFile/writeNewFile(path:pageSize:storeID:checkpoint:pages:replacing:transform:)``),
    /// so `path` holds either what it held or the whole new file, every page in use and none
    /// free. The new file is locked before it is renamed into place and kept as the store's file
    /// (see ``PageFile/NewFile/finish(checkpoint:afterRename:)``), so no other process can lock it first, even
    /// one that found the store's lock file deleted. Sets the extents of `snapshot`'s nodes to where
    /// they are in the new file, and admits its leaves to `cache`.
    ///
    /// - Parameter afterRename: called, before the failure is thrown, when something failed after
    ///   the new file was renamed into place (the directory's sync, reading the file back), with
    ///   the failure and the new file, open and locked. `snapshot`'s nodes then keep their extents.
    /// - Throws: ``StrataError/Code/fileAccess`` and what ``PageFile/open(file:options:)`` throws.
    static func install(
        path: String, storeID: UInt64, snapshot: Snapshot, firstLogSegment: UInt64, cache: NodeCache?,
        afterRename: (StrataError, POSIXFile) -> Void = { _, _ in }
    ) throws -> StorePages {
        try removeLeftovers(of: path)
        let (plan, posix) = try writeNewFile(path: path, storeID: storeID, snapshot: snapshot,
                                             firstLogSegment: firstLogSegment, replacing: true, afterRename: afterRename)
        let file: PageFile
        do {
            file = try PageFile.open(file: posix, options: options(readOnly: false))
        } catch {
            let failure = (error as? StrataError) ?? StrataError(.fileAccess, "\(error)", path: path)
            afterRename(failure, posix)
            throw failure
        }
        for record in plan.pages.written { record(file, cache) }
        return StorePages(file: file, cache: cache, state: plan.state)
    }

    /// Writes `snapshot` as the whole of a new page file at `path` (refused when a file is there
    /// and `replacing` is false), without touching the extents of its nodes, and returns the plan
    /// and the file, open and locked (see ``PageFile/NewFile/finish(checkpoint:afterRename:)``). The pages go
    /// to the file in batches as the trees are walked (see ``CheckpointPages/batchBytes``), so the
    /// memory this takes does not grow with the store.
    @discardableResult
    private static func writeNewFile(
        path: String, storeID: UInt64, snapshot: Snapshot, firstLogSegment: UInt64, replacing: Bool,
        pageSize: Int = pageSize, afterRename: (StrataError, POSIXFile) -> Void = { _, _ in }
    ) throws -> (plan: Plan, file: POSIXFile) {
        let layout = PageLayout(pageSize: pageSize)
        let newFile = try PageFile.NewFile(path: path, pageSize: layout.pageSize, storeID: storeID,
                                           replacing: replacing)
        do {
            var plan = Self.plan(snapshot, after: State(checkpointed: .empty, roots: nil, freePages: []),
                                 pageCount: 2, layout: layout, firstLogSegment: firstLogSegment, rewritesAll: true,
                                 sink: { try newFile.write($0) })
            plan.pages.flush()
            if let failure = plan.pages.sinkFailure { throw failure }
            let file = try newFile.finish(checkpoint: plan.fields, afterRename: afterRename)
            return (plan, file)
        } catch {
            newFile.abandon()
            throw error
        }
    }

    /// Writes a new, compact store at `path` holding `snapshot`: a page file (of `pageSize` pages)
    /// and an empty first log segment, under a new store identity. Nothing of the store `snapshot`
    /// came from changes.
    ///
    /// - Throws: ``StrataError/Code/fileExists`` when a file of a store is at `path` already;
    ///   ``StrataError/Code/fileAccess`` (what was written is removed).
    static func writeCopy(of snapshot: Snapshot, toPath path: String, pageSize: Int = pageSize) throws {
        guard !FileSystem.exists(path), try CommitLog.segmentPaths(storePath: path).isEmpty else {
            throw StrataError(.fileExists, "a file exists at the destination of a copy", path: path)
        }
        do {
            let log = try CommitLog.start(storePath: path, sequence: 1, baseVersion: snapshot.version)
            try writeNewFile(path: path, storeID: log.storeID, snapshot: snapshot, firstLogSegment: 1, replacing: false,
                             pageSize: pageSize)
        } catch {
            try? FileSystem.remove(path)
            try? CommitLog.removeAll(storePath: path)
            throw error
        }
    }

    /// The page file's size and how much of it the current checkpoint uses, in bytes.
    var usage: (total: UInt64, used: UInt64) {
        let free = state.withLockedValue { UInt64($0.freePages.count) }
        let header = file.header
        let pageSize = UInt64(header.pageSize)
        return (header.checkpoint.pageCount * pageSize, (header.checkpoint.pageCount - free) * pageSize)
    }

    /// Where ``PageFile/writeNewFile(path:pageSize:storeID:checkpoint:pages:replacing:transform:)``
    /// builds a new file.
    static func temporaryPath(for path: String) -> String { path + ".tmp" }

    /// Removes what an interrupted ``install(path:storeID:snapshot:firstLogSegment:cache:)`` left.
    static func removeLeftovers(of path: String) throws {
        try FileSystem.remove(temporaryPath(for: path))
    }

    /// Writes a checkpoint of `snapshot`, continued by log segment `firstLogSegment`, and makes
    /// it the file's current header.
    ///
    /// - Throws: ``StrataError/Code/fileAccess`` or ``StrataError/Code/poisoned`` (see
    ///   ``PageFile/writeCheckpoint(_:fields:)``); the current header and every node's extent stay
    ///   as they were.
    func checkpoint(_ snapshot: Snapshot, firstLogSegment: UInt64) throws {
        try state.withLockedValue { state in
            // The pages go to the file in batches as the changed trees are walked (see
            // ``CheckpointPages/batchBytes``), so a checkpoint after many changes does not hold
            // the encoding of every page it writes.
            var planned: (written: [(PageFile, NodeCache?) -> Void], freedLeaves: [FreedLeaf], state: State)?
            try file.writeCheckpoint { write in
                try withoutActuallyEscaping(write) { write in
                    var plan = Self.plan(snapshot, after: state, pageCount: file.header.checkpoint.pageCount,
                                         layout: file.layout, firstLogSegment: firstLogSegment, rewritesAll: false,
                                         deltaSource: file, sink: write)
                    plan.pages.flush()
                    if let failure = plan.pages.sinkFailure { throw failure }
                    // Only what does not hold the sink leaves this closure.
                    planned = (plan.pages.written, plan.pages.freedLeaves, plan.state)
                    return plan.fields
                }
            }
            guard let plan = planned else { return }
            for record in plan.written { record(file, cache) }
            state = plan.state  // releases the previous checkpoint's snapshot
            // The freed pages are reused from the next checkpoint on, which cannot start before
            // this returns: the leaves an older snapshot still holds are read in time.
            for leaf in plan.freedLeaves { leaf.keepResidentIfHeld() }
        }
    }

    /// What a checkpoint writes and what follows from it once it is durable.
    private struct Plan {
        var pages: CheckpointPages
        var fields: PageFileHeader.CheckpointFields
        var state: State
    }

    /// Places the checkpoint of `snapshot` that follows `previous`: the changed tree nodes, the
    /// catalog, the free list.
    ///
    /// With a `deltaSource` (the file the previous checkpoint is in), a changed leaf whose page
    /// the previous checkpoint holds is written as a delta of that page when few of its entries
    /// changed (see ``LeafDelta``), and a branch whose image would stay the same keeps its page.
    private static func plan(
        _ snapshot: Snapshot, after previous: State, pageCount: UInt64, layout: PageLayout, firstLogSegment: UInt64,
        rewritesAll: Bool, deltaSource: PageFile? = nil, sink: (([PageFile.PageWrite]) throws -> Void)? = nil
    ) -> Plan {
        var pages = CheckpointPages(layout: layout, allocator: PageAllocator(pageCount: pageCount,
                                                                            free: previous.freePages),
                                    rewritesAll: rewritesAll, deltaSource: deltaSource,
                                    previousDeltas: previous.deltas.entries, sink: sink)
        var entries: [StoreCatalog.TableEntry] = []
        for table in snapshot.allTables {
            entries.append(table.writeChangedTrees(into: &pages))
        }
        if pages.kept.conflict {
            // Two nodes claimed one page (which no tree of one snapshot does): planned again with
            // every changed node written whole. What the first plan wrote went to free pages.
            return plan(snapshot, after: previous, pageCount: pageCount, layout: layout,
                        firstLogSegment: firstLogSegment, rewritesAll: rewritesAll, deltaSource: nil, sink: sink)
        }
        var freed: [UInt64] = []
        for table in previous.checkpointed.allTables {
            table.collectReplacedPages(kept: pages.kept, into: &freed, leaves: &pages.freedLeaves)
        }
        if let roots = previous.roots {
            freed.append(contentsOf: roots.catalog.pages)
            if let list = roots.freeList { freed.append(contentsOf: list.pages) }
            if let directory = roots.deltaDirectory { freed.append(contentsOf: directory.pages) }
        }
        let (deltas, moved) = updatedDirectory(after: rewritesAll ? DeltaDirectory() : previous.deltas, freed: &freed,
                                               into: &pages)
        let catalog = StoreCatalog(version: snapshot.version, nextTableKey: snapshot.nextTableKey, tables: entries)
        let catalogExtent = pages.place(catalog.encoded(), kind: .catalog)
        let directoryExtent = deltas.entries.isEmpty ? nil
            : pages.place(deltas.encoded(moved: moved), kind: .deltaDirectory)

        let (freeListExtent, freeAfter) = placeFreeList(freed: freed, into: &pages)
        let roots = StoreCatalog.Roots(catalog: catalogExtent, freeList: freeListExtent, deltaDirectory: directoryExtent)
        let fields = PageFileHeader.CheckpointFields(
            logVersion: snapshot.version, firstLogSegment: firstLogSegment, pageCount: pages.allocator.pageCount,
            freeListRoot: freeListExtent?.first ?? 0, roots: roots.encoded())
        return Plan(pages: pages, fields: fields,
                    state: State(checkpointed: snapshot, roots: roots, freePages: freeAfter, deltas: deltas))
    }

    /// Places the free list of the new checkpoint (the allocator's unused free pages and
    /// `freed`) in pages it takes from the allocator; returns its extent (nil when no page is
    /// free) and the free pages it lists.
    private static func placeFreeList(freed: [UInt64], into pages: inout CheckpointPages) -> (PageExtent?, [UInt64]) {
        let freedSorted = freed.sorted()
        func freePages() -> [UInt64] { merge(pages.allocator.freePages, freedSorted) }
        guard !(pages.allocator.freePages.isEmpty && freedSorted.isEmpty) else { return (nil, []) }
        var span = pages.layout.pageCount(forImageOf: FreePageList.encode(freePages()).count)
        while true {
            let extent = pages.allocator.allocate(span)
            let list = freePages()
            let image = FreePageList.encode(list)
            let needed = pages.layout.pageCount(forImageOf: image.count)
            if needed <= span {
                pages.writes.append(contentsOf: pages.layout.pageWrites(for: image, kind: .freeList, at: extent))
                return (extent, list)
            }
            pages.allocator.giveBack(extent)
            span = needed
        }
    }

    private static func merge(_ first: [UInt64], _ second: [UInt64]) -> [UInt64] {
        var result: [UInt64] = []
        result.reserveCapacity(first.count + second.count)
        var i = 0, j = 0
        while i < first.count || j < second.count {
            if j == second.count || (i < first.count && first[i] < second[j]) {
                result.append(first[i])
                i += 1
            } else {
                result.append(second[j])
                j += 1
            }
        }
        return result
    }
}
