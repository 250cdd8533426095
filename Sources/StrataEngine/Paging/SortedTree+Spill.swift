import StrataStorage

extension SortedTree {
    /// A leaf's image in a write transaction's scratch file (``ScratchPages``), and how to read it
    /// back.
    final class SpilledLeaf: Sendable {
        /// The scratch file.
        let pages: ScratchPages
        /// Where the image is.
        let image: ScratchPages.Image
        /// The memory the leaf is estimated to take once read back.
        let residentBytes: Int
        private let decode: @Sendable (inout ByteReader) throws -> (keys: [Key], values: [Value])

        init<Coding: TreeEntryCoding>(_ coding: Coding.Type, pages: ScratchPages, image: ScratchPages.Image, entries: Int)
        where Coding.Key == Key, Coding.Value == Value {
            self.pages = pages
            self.image = image
            residentBytes = SortedTree.estimatedResidentBytes(imageBytes: image.length, entries: entries)
            decode = { reader in
                let count = try reader.readCount(minimumElementSize: 2)
                return try Coding.readLeafEntries(count, from: &reader)
            }
        }

        /// The leaf's entries, read back and checked.
        ///
        /// - Throws: ``StrataError/Code/fileAccess`` or ``StrataError/Code/corruptFile``.
        func read() throws -> (keys: [Key], values: [Value]) {
            let bytes = try pages.read(image)
            return try bytes.withUnsafeBytes { raw in
                var reader = ByteReader(raw, origin: pages.file.path, originOffset: image.offset)
                let entries = try decode(&reader)
                guard reader.isAtEnd else { throw reader.corrupt("trailing bytes after a leaf") }
                return entries
            }
        }
    }

    /// Moves to `pages` the leaves a write transaction has filled and left behind in this tree,
    /// which it owns (built by the transaction, not shared with a published version): the private
    /// leaves `isFilled` accepts, left of the tree's last leaf (still filling). Each becomes a
    /// paged node read back from its image when next used (see ``Node/spill(to:)``), so a
    /// transaction that creates many objects in key order holds a leaf or so of them in memory.
    ///
    /// The walk goes from the last leaf leftwards and stops at the first node that is not the
    /// transaction's own or was moved before: everything left of it was moved by an earlier call
    /// (or belongs to the version the transaction started from), so each call costs what was
    /// added since the last.
    ///
    /// - Returns: false when a write to `pages` failed (the leaf stays in memory; call no more).
    mutating func spillFilledLeaves<Coding: TreeEntryCoding>(
        _ coding: Coding.Type, into pages: ScratchPages, isFilled: (Node) -> Bool
    ) -> Bool where Coding.Key == Key, Coding.Value == Value {
        guard Node.isMutable(&root), !root.isLeaf else { return true }
        var failed = false
        _ = Self.spillChildren(of: root, keepingLast: true) { leaf in
            guard isFilled(leaf) else { return true }
            let entries = leaf.entries
            do {
                let image = try pages.append(Self.leafImage(entries, coding))
                leaf.spill(to: SpilledLeaf(coding, pages: pages, image: image, entries: entries.keys.count))
                return true
            } catch {
                failed = true
                return false
            }
        }
        return !failed
    }

    /// Spills the leaves below the private branch `branch`, right to left (all but its last child's
    /// last leaf when `keepingLast`); returns false once the walk should stop (a node moved before
    /// or shared, or `spill` returned false).
    private static func spillChildren(of branch: Node, keepingLast: Bool, _ spill: (Node) -> Bool) -> Bool {
        var slot = branch.ownChildren.count - 1
        if keepingLast {
            if Node.isMutable(&branch.ownChildren[slot]), !branch.ownChildren[slot].isLeaf {
                guard spillChildren(of: branch.ownChildren[slot], keepingLast: true, spill) else { return false }
            }
            slot -= 1
        }
        while slot >= 0 {
            guard Node.isMutable(&branch.ownChildren[slot]) else { return false }
            let child = branch.ownChildren[slot]
            let goesOn = child.isLeaf ? spill(child) : spillChildren(of: child, keepingLast: false, spill)
            guard goesOn else { return false }
            slot -= 1
        }
        return true
    }
}
