import StrataStorage
import StrataSupport
import Synchronization

/// Where a leaf's delta is: `length` bytes at `offset` of the payload of the
/// ``PageKind/leafDeltas`` page `page`.
struct LeafDeltaRef: Hashable, Sendable {
    var page: UInt64
    var offset: Int
    var length: Int
}

/// What a checkpoint writes for a changed leaf instead of the leaf's whole image, when the leaf
/// has a page already and few of its entries changed: the entries that differ from that page's
/// image, each as a delete, an insert, a replaced value, or (for rows) the changed columns only.
///
/// A random update of one column in a large table touches one leaf of 64 rows; rewriting the
/// leaf writes its 6–7 KB image for a 40-byte log record, where its delta takes about ten bytes.
/// A delta is always relative to the leaf's page image, never to a previous delta: a later
/// checkpoint that changes the leaf again writes the composition of the two (see
/// ``compose(previous:base:current:limit:)``), so a read applies at most one delta. Deltas are
/// packed many to a page (see ``CheckpointPages``), and the page file's delta directory says which
/// leaf's delta is where (see ``DeltaDirectory``).
///
/// A delta's encoding:
/// ```
/// varint n (changes, at least 1)
/// n × { key (TreeEntryCoding), u8 change, payload }, keys strictly ascending
/// change 0 delete   (the image holds the key; nothing follows)
///        1 insert   (the image lacks the key; the value follows)
///        2 replace  (the image holds the key; the whole new value follows)
///        3 patch    (the image holds the key; the changed parts follow: TreeEntryCoding.writeParts)
/// ```
enum LeafDelta<Coding: TreeEntryCoding> {
    typealias Key = Coding.Key
    typealias Value = Coding.Value

    /// One entry's change, without its value: what composing needs of a previous delta.
    enum Shape: Equatable {
        case delete
        case insert
        case replace
        case patch([Int])
    }

    private static func code(_ shape: Shape) -> UInt8 {
        switch shape {
        case .delete: 0
        case .insert: 1
        case .replace: 2
        case .patch: 3
        }
    }

    /// The delta that takes a leaf's page image to `current`, given the leaf as of the last
    /// checkpoint (`base`: the image with the delta `previous` applied, whose shapes these are;
    /// empty when the leaf was written whole). Values are taken from `current`; an entry is
    /// compared with its value in `base` by ``TreeEntryCoding/difference(from:to:)``.
    ///
    /// - Returns: the encoded delta, `[]` when `current` equals the image, or nil when the
    ///   delta would take more than `limit` bytes (the leaf is then written whole).
    static func compose(
        previous: [(key: Key, shape: Shape)], base: (keys: [Key], values: [Value]),
        current: (keys: [Key], values: [Value]), limit: Int
    ) -> [UInt8]? {
        var body = ByteWriter(capacity: 256)
        var changes = 0
        var p = 0, b = 0, c = 0
        while p < previous.count || b < base.keys.count || c < current.keys.count {
            // The smallest key at the three heads.
            var smallest: Key?
            if p < previous.count { smallest = previous[p].key }
            if b < base.keys.count, smallest.map({ base.keys[b] < $0 }) ?? true { smallest = base.keys[b] }
            if c < current.keys.count, smallest.map({ current.keys[c] < $0 }) ?? true { smallest = current.keys[c] }
            guard let key = smallest else { break }
            var earlier: Shape?
            if p < previous.count, previous[p].key == key {
                earlier = previous[p].shape
                p += 1
            }
            let baseIndex = b < base.keys.count && base.keys[b] == key ? b : nil
            let currentIndex = c < current.keys.count && current.keys[c] == key ? c : nil
            if baseIndex != nil { b += 1 }
            if currentIndex != nil { c += 1 }
            // The image holds the key unless the earlier delta inserted it; without an earlier
            // change, the base (the image then) says.
            let inImage = earlier.map { $0 != .insert } ?? (baseIndex != nil)
            let shape: Shape?
            switch (inImage, currentIndex) {
            case (true, nil): shape = .delete
            case (false, nil): shape = nil
            case (false, .some): shape = .insert
            case (true, .some(let index)):
                var parts: [Int] = []
                var whole = false
                switch earlier {
                case nil: break
                case .patch(let earlierParts)?: parts = earlierParts
                case .replace?, .delete?, .insert?: whole = true
                }
                if !whole, let baseIndex {
                    switch Coding.difference(from: base.values[baseIndex], to: current.values[index]) {
                    case .none: break
                    case .whole: whole = true
                    case .parts(let changed): parts = merged(parts, changed)
                    }
                }
                shape = whole ? .replace : parts.isEmpty ? nil : .patch(parts)
            }
            guard let shape else { continue }
            Coding.write(key, to: &body)
            body.write(code(shape))
            switch shape {
            case .delete: break
            case .insert, .replace: Coding.write(value: current.values[currentIndex!], to: &body)
            case .patch(let parts): Coding.writeParts(parts, of: current.values[currentIndex!], to: &body)
            }
            changes += 1
            if body.count > limit { return nil }
        }
        guard changes > 0 else { return [] }
        var writer = ByteWriter(capacity: body.count + 5)
        writer.writeCount(changes)
        writer.writeRaw(body.bytes)
        return writer.count <= limit ? writer.bytes : nil
    }

    /// The number of changes in `record` (an encoded delta), or 0 when it is empty or malformed.
    static func changeCount(of record: [UInt8]) -> Int {
        record.withUnsafeBytes { raw in
            var reader = ByteReader(raw, origin: "delta")
            return (try? reader.readCount(minimumElementSize: 2)) ?? 0
        }
    }

    /// The union of two ascending lists of parts.
    private static func merged(_ a: [Int], _ b: [Int]) -> [Int] {
        guard !a.isEmpty else { return b }
        return Array(Set(a).union(b)).sorted()
    }

    /// Reads delta `record` (at `offset` of page `page` of `file`, for error messages), calling
    /// `body` with each change's key, shape and the reader positioned at its payload; `body`
    /// reads the payload.
    private static func read(
        _ record: [UInt8], origin: String, originOffset: UInt64,
        _ body: (Key, UInt8, inout ByteReader) throws -> Void
    ) throws {
        try record.withUnsafeBytes { raw in
            var reader = ByteReader(raw, origin: origin, originOffset: originOffset)
            let count = try reader.readCount(minimumElementSize: 2)
            guard count > 0 else { throw reader.corrupt("a leaf delta with no changes") }
            var last: Key?
            for _ in 0..<count {
                let key = try Coding.readKey(from: &reader)
                if let last, !(last < key) { throw reader.corrupt("a leaf delta's keys are out of order") }
                last = key
                let change = try reader.readByte()
                guard change <= 3 else { throw reader.corrupt("a leaf delta's change \(change) is unknown") }
                try body(key, change, &reader)
            }
            guard reader.isAtEnd else { throw reader.corrupt("trailing bytes after a leaf delta") }
        }
    }

    /// The changes of `record`, without their values (for ``compose(previous:base:current:limit:)``).
    ///
    /// - Throws: ``StrataError/Code/corruptFile`` when the record is malformed.
    static func shapes(of record: [UInt8], origin: String, originOffset: UInt64) throws -> [(key: Key, shape: Shape)] {
        var shapes: [(key: Key, shape: Shape)] = []
        try read(record, origin: origin, originOffset: originOffset) { key, change, reader in
            switch change {
            case 0: shapes.append((key, .delete))
            case 1, 2:
                _ = try Coding.readValue(from: &reader)
                shapes.append((key, change == 1 ? .insert : .replace))
            default: shapes.append((key, .patch(try Coding.readParts(from: &reader, applyingTo: nil).parts)))
            }
        }
        return shapes
    }

    /// The entries of a leaf whose image holds `keys` and `values`, with `record` applied.
    ///
    /// - Throws: ``StrataError/Code/corruptFile`` when the record is malformed or does not fit
    ///   the image (deletes, replaces or patches a key the image lacks, inserts one it holds).
    static func apply(
        _ record: [UInt8], to keys: [Key], _ values: [Value], origin: String, originOffset: UInt64
    ) throws -> (keys: [Key], values: [Value]) {
        var newKeys: [Key] = [], newValues: [Value] = []
        newKeys.reserveCapacity(keys.count + 8)
        newValues.reserveCapacity(keys.count + 8)
        var index = 0
        try read(record, origin: origin, originOffset: originOffset) { key, change, reader in
            while index < keys.count, keys[index] < key {
                newKeys.append(keys[index])
                newValues.append(values[index])
                index += 1
            }
            let present = index < keys.count && keys[index] == key
            guard present == (change != 1) else {
                throw reader.corrupt(present ? "a leaf delta inserts a key its page holds"
                                             : "a leaf delta changes a key its page lacks")
            }
            switch change {
            case 0: break
            case 1, 2:
                newKeys.append(key)
                newValues.append(try Coding.readValue(from: &reader))
            default:
                newKeys.append(key)
                newValues.append(try Coding.readParts(from: &reader, applyingTo: values[index]).value!)
            }
            if present { index += 1 }
        }
        newKeys.append(contentsOf: keys[index...])
        newValues.append(contentsOf: values[index...])
        return (newKeys, newValues)
    }
}

extension LeafDeltaRef {
    /// The delta's bytes, read from `file`.
    ///
    /// - Throws: ``StrataError/Code/corruptFile`` naming the file and page when the page is
    ///   damaged, not a ``PageKind/leafDeltas`` page, or shorter than the delta's end;
    ///   ``StrataError/Code/fileAccess``.
    func read(from file: PageFile) throws -> [UInt8] {
        let deltas = try file.read(page: page)
        guard deltas.kind == .leafDeltas else {
            throw StrataError(.corruptFile, "page \(page) of \(file.path) is damaged: it holds a \(deltas.kind) page "
                                  + "where a leaf deltas page belongs", path: file.path,
                              offset: page * UInt64(file.pageSize))
        }
        guard offset <= deltas.payload.count, length <= deltas.payload.count - offset else {
            throw StrataError(.corruptFile, "page \(page) of \(file.path) is damaged: it holds \(deltas.payload.count) "
                                  + "bytes of leaf deltas, where a delta at \(offset) takes \(length)",
                              path: file.path, offset: page * UInt64(file.pageSize))
        }
        return Array(deltas.payload[offset..<(offset + length)])
    }

    /// Where the delta's bytes start in the file, for error messages.
    func fileOffset(pageSize: Int) -> UInt64 { page * UInt64(pageSize) + UInt64(PageFrame.headerSize + offset) }
}

/// Where a leaf's delta is, shared by every node that stands for the leaf's page with that delta
/// (and by the delta directory): a checkpoint that moves the delta out of a mostly unused
/// leaf-deltas page (see `StorePages.plan`) updates it once the move is durable, so that the old
/// page can be reused. A read holds it while it reads the delta, so a move waits for the read,
/// and a read after the move finds the new place (the old page is reused by a later checkpoint
/// only, which cannot start before the move is recorded).
final class LeafDeltaHandle: Sendable {
    private let place: Mutex<LeafDeltaRef>

    init(_ ref: LeafDeltaRef) { place = Mutex(ref) }

    /// Where the delta is now.
    var ref: LeafDeltaRef { place.withLock { $0 } }

    /// The delta's place and bytes, read from `file`.
    ///
    /// - Throws: as ``LeafDeltaRef/read(from:)``.
    func read(from file: PageFile) throws -> (ref: LeafDeltaRef, bytes: [UInt8]) {
        try place.withLock { ref in (ref, try ref.read(from: file)) }
    }

    /// Records that the delta is at `ref` now (the same bytes, durable there).
    func move(to ref: LeafDeltaRef) { place.withLock { $0 = ref } }
}
