import StrataSupport

/// The write-time twins of the decoder's limits: what a transaction accepts, the log and the
/// checkpoint can read back.
///
/// - Values nest fewer than ``maximumValueNesting`` levels (`ByteReader.readValue(depth:)`):
///   ``Value/requireEncodable(atDepth:)``, from every validation of an incoming value.
/// - List and column indexes fit `Int32` (`ByteReader.readIndex()`): ``maximumCollectionIndex``,
///   in `listInsert`, `createTable` and `addColumn`.
/// - A commit's payload length fits the record header's `u32` (`LogRecord.header(in:at:)`):
///   ``maximumCommitPayload``, in `Store.log(snapshot:instructions:)`.
///
/// Counts (`readCount`) are checked against the bytes left, which a writer always satisfies;
/// strings are valid UTF-8 by construction; table keys and nanoseconds have their decoded
/// widths in their Swift types.
extension Value {
    /// Throws ``StrataError/Code/invalidInput`` unless this value, stored `depth` levels below a
    /// column value (0 for a column value itself, 1 for an element of a list, set or
    /// dictionary column), nests fewer than ``maximumValueNesting`` levels deep in all: the
    /// decoder refuses anything deeper, so a store holding it could not be reopened.
    ///
    /// - Complexity: O(n) in the nested elements, stopping at the limit.
    func requireEncodable(atDepth depth: Int) throws {
        guard fitsNesting(atDepth: depth) else {
            throw StrataError(.invalidInput, "values nested deeper than \(maximumValueNesting) levels cannot be stored")
        }
    }

    private func fitsNesting(atDepth depth: Int) -> Bool {
        guard depth < maximumValueNesting else { return false }
        switch self {
        case .list(let elements), .set(let elements):
            return elements.allSatisfy { $0.fitsNesting(atDepth: depth + 1) }
        case .dictionary(let map):
            return map.values.allSatisfy { $0.fitsNesting(atDepth: depth + 1) }
        default:
            return true
        }
    }
}

/// The largest list index or column index the instruction decoder reads back.
let maximumCollectionIndex = Int(Int32.max)

/// The largest payload (encoded instructions) of one commit: the record header stores its
/// length as a `u32`.
let maximumCommitPayload = Int(UInt32.max)
