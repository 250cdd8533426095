import StrataStorage
import StrataSupport

extension SortedTree {
    /// Reads every entry of the tree rooted at `root` in `file` whose leaf checks out (as a stub
    /// read would, with the same `check`), passing each to `body`, and records in `damage` every
    /// node that does not (as damage to `structure`), skipping what is below it.
    ///
    /// - Returns: the entries below the nodes skipped, as their parents (or the root) count them.
    /// - Throws: what `damage` throws, or what `body` throws.
    /// - Complexity: O(n) in the tree's pages.
    static func salvageEntries<Coding: TreeEntryCoding>(
        _ root: PagedTreeRoot, _ coding: Coding.Type, in file: PageFile, deltas: [UInt64: LeafDeltaHandle],
        damage: inout DamageCollector, structure: String, check: @escaping @Sendable (Value) -> Bool = { _ in true },
        _ body: (Key, Value) throws -> Void
    ) throws -> Int where Coding.Key == Key, Coding.Value == Value {
        let loader = PageLoader(file: file, coding: coding, cache: nil, deltas: deltas, check: check)
        var reached = Set<UInt64>()
        var lost = 0
        var pending = [(root.extent, root.count, 0)]
        while let (extent, count, depth) = pending.popLast() {
            let node: Node
            do {
                guard depth < 32 else {
                    throw StrataError(.corruptFile, "a tree in \(file.path) is deeper than 32 levels at \(extent)",
                                      path: file.path, offset: extent.first * UInt64(file.pageSize))
                }
                if let page = extent.pages.first(where: { !reached.insert($0).inserted }) {
                    throw StrataError(.corruptFile, "page \(page) of \(file.path) is reached twice", path: file.path,
                                      offset: page * UInt64(file.pageSize))
                }
                node = try loader.read(extent, delta: loader.delta(ofLeafAt: extent.first), count).node
            } catch {
                try damage.record(error, in: structure)
                lost += count
                continue
            }
            guard !node.isLeaf else {
                for (key, value) in zip(node.keys, node.values) { try body(key, value) }
                continue
            }
            for child in node.children.reversed() {
                if let childExtent = child.extent { pending.append((childExtent, child.count, depth + 1)) }
            }
        }
        return lost
    }
}
