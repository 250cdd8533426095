import StrataStorage
import StrataSupport

/// A write transaction's instructions, kept as they are recorded in the form the commit log
/// record's payload takes (see ``Instruction`` coding), plus what notifications need decoded:
/// the per-table summary and the collection edits.
///
/// The transaction does not keep its instructions as values: an object's values live once, in
/// its row, rather than a second time in an `insertObject` instruction until the commit. Past
/// ``chunkBytes`` of encoded instructions, the bytes move to a scratch file next to the store
/// (``POSIXFile/scratch(in:purpose:)``), so a large transaction holds at most one chunk of its record in
/// memory, and the commit streams the record from there into the log
/// (``CommitLog/append(version:payloadLength:writePayload:)``). When the scratch file cannot be
/// made or written (a full disk), the bytes stay in memory: the transaction goes on as before.
struct InstructionSpool {
    /// The encoded bytes held in memory before they move to the scratch file
    /// (``StoreConfiguration/instructionSpoolBytes``).
    let chunkBytes: Int

    /// The number of instructions recorded (each one applied counts, see ``pending``).
    private(set) var count = 0
    /// The number of instructions encoded, ``pending`` not included.
    private var encodedCount = 0
    /// The last instruction, when it sets a plain value (not a collection), not encoded yet: the
    /// next set of the same property replaces it (replaying only the later set gives the same
    /// state), so a loop setting one property encodes one instruction, not one per pass. Encoded
    /// before any other instruction, and at the end.
    private var pending: Instruction?
    /// The property ``pending`` sets.
    private var pendingPath: PropertyPath?
    /// The per-table summary of the instructions so far.
    private(set) var summary = ChangesetSummary()
    /// The instructions so far that edit collections, in order (see ``Instruction/editsCollection``).
    private(set) var collectionEdits: [Instruction] = []
    /// Every instruction, when the spool was asked to keep them (``keepingInstructions``).
    private(set) var kept: [Instruction]?
    /// The property the last instruction changed, when it changed one: the same property changed
    /// again at once is in the summary already (a loop setting one property skips its hashing).
    private var lastModified: PropertyPath?
    /// The encoded instructions not in the scratch file yet.
    private var buffer = ByteWriter(capacity: 256)
    /// The scratch file holding the first `spilledBytes` bytes of the encoded instructions.
    private var file: POSIXFile?
    /// The number of encoded bytes in the scratch file.
    private(set) var spilledBytes: UInt64 = 0
    /// Where the scratch file goes; nil when the spool never spills (a store in memory, or after
    /// the scratch file failed).
    private var directory: String?

    /// An empty spool that moves its bytes to a scratch file in `directory` (never when nil)
    /// every `chunkBytes` bytes.
    init(spillingInto directory: String?, chunkBytes: Int) {
        self.directory = directory
        self.chunkBytes = Swift.max(1, chunkBytes)
    }

    /// Whether every instruction is also kept decoded (for a Realm recording write events).
    var keepingInstructions: Bool {
        get { kept != nil }
        set { kept = newValue ? (kept ?? []) : nil }
    }

    /// Records `instruction`, applied to the transaction's snapshot.
    mutating func append(_ instruction: Instruction) {
        count += 1
        kept?.append(instruction)
        if case .setValue(let path, let value) = instruction, !value.isCollection {
            // A plain value set: the common case of a write loop, kept cheap.
            if path != lastModified {
                summary.record(instruction)
                lastModified = path
            }
            if path != pendingPath { encodePending() }
            pending = instruction
            pendingPath = path
            return
        }
        let modified = instruction.modifiedProperty
        if modified == nil || modified != lastModified { summary.record(instruction) }
        lastModified = modified
        if instruction.editsCollection { collectionEdits.append(instruction) }
        encodePending()
        encode(instruction)
    }

    /// Encodes `instruction` after the others, moving the bytes to the scratch file past a chunk.
    private mutating func encode(_ instruction: Instruction) {
        buffer.write(instruction)
        encodedCount += 1
        if buffer.count >= chunkBytes { spill() }
    }

    /// Encodes the pending value set, if any.
    private mutating func encodePending() {
        guard let pending else { return }
        self.pending = nil
        pendingPath = nil
        encode(pending)
    }

    /// Moves the buffered bytes to the end of the scratch file, or leaves them in memory for good
    /// when that fails (nothing of a failed write counts: the file's length does not move).
    private mutating func spill() {
        guard let directory else { return }
        do {
            let file = try self.file ?? POSIXFile.scratch(in: directory, purpose: "instructions")
            self.file = file
            try file.write(buffer.bytes, at: spilledBytes)
            spilledBytes += UInt64(buffer.count)
            buffer = ByteWriter(capacity: chunkBytes + chunkBytes / 8)
        } catch {
            self.directory = nil
        }
    }

    /// The instructions so far, decoded (or as kept). Traps when the scratch file cannot be read
    /// back: for inspection (``WriteTransaction/instructions``).
    func decodedForInspection() -> [Instruction] {
        if let kept { return kept }
        let view = SpooledInstructions(count: encodedCount, file: file, spilledBytes: spilledBytes, tail: buffer.bytes,
                                       kept: nil, pieceBytes: chunkBytes)
        do { return try view.decoded() + (pending.map { [$0] } ?? []) } catch {
            preconditionFailure("the transaction's instructions cannot be read back: \(error)")
        }
    }

    /// The instructions as a commit hands them on: the spool ends.
    consuming func finish() -> SpooledInstructions {
        encodePending()
        return SpooledInstructions(count: encodedCount, file: file, spilledBytes: spilledBytes, tail: buffer.takeBytes(),
                                   kept: kept, pieceBytes: chunkBytes)
    }
}

/// A committed transaction's encoded instructions (the log record's payload, see
/// ``InstructionSpool``): immutable, read by the commit that writes the record and decoded only
/// for inspection.
package final class SpooledInstructions: Sendable {
    /// The number of instructions.
    package let count: Int
    private let file: POSIXFile?
    private let spilledBytes: UInt64
    /// The encoded instructions after the first `spilledBytes`, in memory.
    private let tail: [UInt8]
    private let kept: [Instruction]?
    /// The payload's first bytes: the instruction count.
    private let countPrefix: [UInt8]
    /// The most bytes read back from the scratch file at a time.
    private let pieceBytes: Int

    fileprivate init(count: Int, file: POSIXFile?, spilledBytes: UInt64, tail: [UInt8], kept: [Instruction]?,
                     pieceBytes: Int) {
        self.count = count
        self.pieceBytes = pieceBytes
        self.file = file
        self.spilledBytes = spilledBytes
        self.tail = tail
        self.kept = kept
        var prefix = ByteWriter(capacity: 10)
        prefix.writeCount(count)
        countPrefix = prefix.bytes
    }

    /// The length of the log record's payload: the count, then the instructions.
    package var payloadLength: Int { countPrefix.count + Int(spilledBytes) + tail.count }

    /// Whether every byte is in memory (none moved to a scratch file).
    package var isInMemory: Bool { file == nil }

    /// Appends the payload to `writer`: for a record whose bytes are all in memory.
    func write(to writer: inout ByteWriter) {
        precondition(isInMemory, "SpooledInstructions.write(to:) takes instructions held in memory")
        writer.writeRaw(countPrefix)
        writer.writeRaw(tail)
    }

    /// Calls `body` with the payload's bytes in order, in pieces of at most the spool's chunk
    /// size (but for the tail), reading the scratch file's part back a piece at a time.
    ///
    /// - Throws: what `body` throws, or ``StrataError/Code/fileAccess`` when the scratch file
    ///   cannot be read back whole.
    func forEachPiece(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        try countPrefix.withUnsafeBytes(body)
        if let file {
            var offset: UInt64 = 0
            while offset < spilledBytes {
                let length = Int(Swift.min(UInt64(pieceBytes), spilledBytes - offset))
                let piece = try file.read(count: length, at: offset)
                guard piece.count == length else {
                    throw StrataError(.fileAccess, "the scratch file of a commit ends at \(offset + UInt64(piece.count)) "
                                      + "of \(spilledBytes) bytes", path: file.path)
                }
                try piece.withUnsafeBytes(body)
                offset += UInt64(length)
            }
        }
        try tail.withUnsafeBytes(body)
    }

    /// The instructions, decoded from the payload (or as kept).
    ///
    /// - Throws: ``StrataError/Code/fileAccess`` when the scratch file cannot be read back.
    package func decoded() throws -> [Instruction] {
        if let kept { return kept }
        var payload: [UInt8] = []
        payload.reserveCapacity(payloadLength)
        try forEachPiece { payload.append(contentsOf: $0) }
        return try payload.withUnsafeBytes { raw in
            var reader = ByteReader(raw, origin: "a commit's instructions")
            return try reader.readPayloadInstructions()
        }
    }
}

extension Instruction {
    /// The property a value set or a collection edit changes; nil for any other instruction.
    var modifiedProperty: PropertyPath? {
        switch self {
        case .setValue(let path, _), .list(let path, _), .set(let path, _), .dictionary(let path, _): path
        default: nil
        }
    }

    /// Whether the instruction edits a collection: a list, set or dictionary change, or a value
    /// set that replaces a whole collection (a collection column's contents, or a mixed value
    /// holding a nested collection). Notifications read these beyond the commit's summary.
    package var editsCollection: Bool {
        switch self {
        case .list, .set, .dictionary: return true
        case .setValue(_, let value): return value.isCollection
        default: return false
        }
    }
}

extension Value {
    /// Whether the value is a collection's contents (a list, a set or a dictionary).
    var isCollection: Bool {
        switch self {
        case .list, .set, .dictionary: true
        default: false
        }
    }
}
