extension SortedTree {
    /// The paged node a lineage of changed nodes stands in for: the node a checkpoint may write
    /// such a node against, as a delta of its page (see ``Node/base``).
    ///
    /// A writer that changes a paged node clones it, and the clone gets a new box holding the
    /// paged node; a clone of a changed node shares its box (so a lineage of versions of one
    /// node, at one place in the tree, shares one box). When a checkpoint records a node of the
    /// lineage as written, it moves the box on to that node: versions made from it while that
    /// checkpoint ran (cloned from it before it was recorded) then stand in for the page it wrote,
    /// not the one it replaced, which the checkpoint superseded and a delta can no longer be
    /// written against; without the box such a version was written whole at the next checkpoint,
    /// and kept the replaced node resident until then.
    ///
    /// Any node of a lineage may be written against any node the box holds: a delta records how
    /// a leaf's entries differ from its base's, not which changes led there.
    final class BaseBox: @unchecked Sendable {
        // Safety: `node` is set when the box is made, then only by a checkpoint recording a node
        // of the lineage, and read only by checkpoints (``Node/base``), which run one at a time
        // under their store's lock; writers only pass the box on.
        /// The node the lineage stands in for.
        var node: Node

        init(_ node: Node) { self.node = node }
    }
}
