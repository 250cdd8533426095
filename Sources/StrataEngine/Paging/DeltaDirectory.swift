import StrataStorage
import StrataSupport

/// Which leaves of a page file's trees have a delta (see ``LeafDelta``), and where each is: the
/// leaf's first page → the delta's place in a ``PageKind/leafDeltas`` page.
///
/// A checkpoint writes the whole directory as one ``PageKind/deltaDirectory`` image (the roots
/// name it), a few bytes per leaf with a delta. A reader finds a leaf's delta here when it makes
/// the stub of a leaf from its parent's page at open; a leaf written or changed since carries its
/// own (see ``SortedTree/Node/delta``).
///
/// ```
/// varint n (entries)
/// n × { varint leaf page (the first: the page; then the step from the previous, at least 1),
///       varint delta page, varint offset in its payload, varint length }
/// ```
struct DeltaDirectory: Sendable {
    var entries: [UInt64: LeafDeltaHandle] = [:]

    /// The pages the deltas are in, with the moves in `moved` (leaf page → new place) made.
    func deltaPages(moved: [UInt64: LeafDeltaRef] = [:]) -> Set<UInt64> {
        Set(entries.map { moved[$0.key]?.page ?? $0.value.ref.page })
    }

    /// The directory's image, with the moves in `moved` made.
    func encoded(moved: [UInt64: LeafDeltaRef] = [:]) -> [UInt8] {
        var writer = ByteWriter(capacity: 8 + entries.count * 8)
        writer.writeCount(entries.count)
        var previous: UInt64 = 0
        for leaf in entries.keys.sorted() {
            let delta = moved[leaf] ?? entries[leaf]!.ref
            writer.writeVarint(leaf - previous)
            writer.writeVarint(delta.page)
            writer.writeCount(delta.offset)
            writer.writeCount(delta.length)
            previous = leaf
        }
        return writer.bytes
    }

    /// Decodes the directory image at `extent` of the page file `path` of `pageCount` pages whose
    /// pages hold `payloadCapacity` bytes.
    ///
    /// - Throws: ``StrataError/Code/corruptFile`` naming the file and page when the image is
    ///   malformed or names a page outside the file or a delta outside its page.
    static func decode(
        _ bytes: [UInt8], pageCount: UInt64, payloadCapacity: Int, path: String, at extent: PageExtent, pageSize: Int
    ) throws -> DeltaDirectory {
        try bytes.withUnsafeBytes { raw in
            var reader = ByteReader(raw, origin: path, originOffset: extent.first * UInt64(pageSize))
            let count = try reader.readCount(minimumElementSize: 4)
            var directory = DeltaDirectory()
            directory.entries.reserveCapacity(count)
            var leaf: UInt64 = 0
            for index in 0..<count {
                let step = try reader.readVarint()
                let (next, overflow) = leaf.addingReportingOverflow(step)
                let page = try reader.readVarint()
                guard !overflow, index == 0 || step > 0, (2..<pageCount).contains(next),
                      (2..<pageCount).contains(page),
                      let offset = Int(exactly: try reader.readVarint()),
                      let length = Int(exactly: try reader.readVarint()),
                      length >= 2, offset <= payloadCapacity, length <= payloadCapacity - offset else {
                    throw reader.corrupt("the delta directory's entry \(index) is out of order or out of range")
                }
                leaf = next
                directory.entries[leaf] = LeafDeltaHandle(LeafDeltaRef(page: page, offset: offset, length: length))
            }
            guard reader.isAtEnd else { throw reader.corrupt("trailing bytes after the delta directory") }
            return directory
        }
    }
}
