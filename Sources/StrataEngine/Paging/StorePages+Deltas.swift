import StrataStorage

extension StorePages {
    /// The delta directory a checkpoint leaves after `previous`: without the leaves whose pages it
    /// frees (`freed`), with the deltas it wrote (`pages.deltaUpdates`), and with the live deltas of
    /// mostly unused leaf-deltas pages moved into the pages it fills (`moved`: leaf page → new
    /// place; each delta's handle is updated once the checkpoint is durable). Adds to `freed` the
    /// leaf-deltas pages no delta is in any more, and finishes the deltas' pages.
    ///
    /// A leaf-deltas page stays in use while one delta in it is its leaf's latest: updates spread
    /// over many leaves would otherwise keep a page for a few bytes. A page less than a quarter
    /// used has its deltas moved, the sparsest first, as long as the bytes moved stay within what
    /// the checkpoint wrote of new deltas (or 16 pages' worth), so moving never dominates a
    /// checkpoint's writes.
    static func updatedDirectory(
        after previous: DeltaDirectory, freed: inout [UInt64], into pages: inout CheckpointPages
    ) -> (directory: DeltaDirectory, moved: [UInt64: LeafDeltaRef]) {
        var directory = previous
        if !directory.entries.isEmpty {
            for page in freed { directory.entries.removeValue(forKey: page) }
        }
        for (leaf, delta) in pages.deltaUpdates { directory.entries[leaf] = delta }
        var moved: [UInt64: LeafDeltaRef] = [:]
        if let file = pages.deltaSource {
            moveSparseDeltas(of: directory, from: file, into: &pages, moved: &moved)
        }
        pages.finishDeltas()
        if !previous.entries.isEmpty {
            freed.append(contentsOf: previous.deltaPages().subtracting(directory.deltaPages(moved: moved)))
        }
        return (directory, moved)
    }

    private static func moveSparseDeltas(
        of directory: DeltaDirectory, from file: PageFile, into pages: inout CheckpointPages,
        moved: inout [UInt64: LeafDeltaRef]
    ) {
        let capacity = pages.layout.payloadCapacity
        // The deltas of earlier checkpoints, by page.
        var byPage: [UInt64: (bytes: Int, deltas: [(leaf: UInt64, handle: LeafDeltaHandle)])] = [:]
        for (leaf, handle) in directory.entries where pages.deltaUpdates[leaf] == nil {
            let ref = handle.ref
            byPage[ref.page, default: (0, [])].bytes += ref.length
            byPage[ref.page]!.deltas.append((leaf, handle))
        }
        var budget = Swift.max(pages.deltaBytes, 16 * capacity)
        let sparse = byPage.filter { $0.value.bytes * 4 < capacity }.sorted { $0.value.bytes < $1.value.bytes }
        for (number, page) in sparse {
            guard page.bytes <= budget else { break }
            // A page that cannot be read keeps its deltas where they are (its leaves' reads will
            // report it).
            guard let read = try? file.read(page: number), read.kind == .leafDeltas else { continue }
            for (leaf, handle) in page.deltas {
                let ref = handle.ref
                guard ref.offset + ref.length <= read.payload.count else { continue }
                let place = pages.placeDelta(Array(read.payload[ref.offset..<(ref.offset + ref.length)]))
                moved[leaf] = place
                pages.written.append { _, _ in handle.move(to: place) }
            }
            budget -= page.bytes
        }
    }
}
