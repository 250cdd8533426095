import StrataStorage
import StrataSupport

/// Tags of the binary value encoding.
private enum ValueTag: UInt8 {
    case null = 0, falseValue, trueValue, int, float, double, string, binary, timestamp, decimal128
    case objectId, uuid, link, list, set, dictionary
}

/// Nested collections deeper than this are refused when decoding, so damaged data cannot
/// overflow the stack; writes are held to the same limit (``Value/requireEncodable(atDepth:)``).
let maximumValueNesting = 256

extension ByteWriter {
    /// Appends the binary encoding of `value`.
    mutating func write(_ value: Value) {
        switch value {
        case .null: write(ValueTag.null.rawValue)
        case .bool(let flag): write(flag ? ValueTag.trueValue.rawValue : ValueTag.falseValue.rawValue)
        case .int(let number):
            write(ValueTag.int.rawValue)
            writeSignedVarint(number)
        case .float(let number):
            write(ValueTag.float.rawValue)
            writeFixed(number.bitPattern)
        case .double(let number):
            write(ValueTag.double.rawValue)
            writeFixed(number.bitPattern)
        case .string(let string):
            write(ValueTag.string.rawValue)
            writeString(string)
        case .binary(let bytes):
            write(ValueTag.binary.rawValue)
            writeBytes(bytes)
        case .timestamp(let time):
            write(ValueTag.timestamp.rawValue)
            writeSignedVarint(time.seconds)
            writeSignedVarint(Int64(time.nanoseconds))
        case .decimal128(let bits):
            write(ValueTag.decimal128.rawValue)
            writeFixed(bits.low)
            writeFixed(bits.high)
        case .objectId(let bits):
            write(ValueTag.objectId.rawValue)
            writeFixed(bits.head)
            writeFixed(bits.tail)
        case .uuid(let bits):
            write(ValueTag.uuid.rawValue)
            writeFixed(bits.high)
            writeFixed(bits.low)
        case .link(let link):
            write(ValueTag.link.rawValue)
            write(link)
        case .list(let elements):
            write(ValueTag.list.rawValue)
            writeCount(elements.count)
            for element in elements { write(element) }
        case .set(let elements):
            write(ValueTag.set.rawValue)
            writeCount(elements.count)
            for element in elements { write(element) }
        case .dictionary(let map):
            write(ValueTag.dictionary.rawValue)
            writeCount(map.count)
            for (key, element) in map {
                writeString(key)
                write(element)
            }
        }
    }

    mutating func write(_ link: ObjectLink) {
        writeVarint(UInt64(link.table.rawValue))
        writeSignedVarint(link.key.rawValue)
    }
}

extension ByteReader {
    /// Reads a value written by `ByteWriter.write(_:)`.
    mutating func readValue(depth: Int = 0) throws -> Value {
        guard depth < maximumValueNesting else { throw corrupt("values nested deeper than \(maximumValueNesting)") }
        let rawTag = try readByte()
        guard let tag = ValueTag(rawValue: rawTag) else { throw corrupt("unknown value tag \(rawTag)") }
        switch tag {
        case .null: return .null
        case .falseValue: return .bool(false)
        case .trueValue: return .bool(true)
        case .int: return .int(try readSignedVarint())
        case .float: return .float(Float(bitPattern: try readFixed32()))
        case .double: return .double(Double(bitPattern: try readFixed64()))
        case .string: return .string(try readString())
        case .binary: return .binary(try readBytes())
        case .timestamp:
            let seconds = try readSignedVarint()
            let nanoseconds = try readSignedVarint()
            guard let nanos = Int32(exactly: nanoseconds) else { throw corrupt("timestamp nanoseconds out of range") }
            return .timestamp(Timestamp(seconds: seconds, nanoseconds: nanos))
        case .decimal128:
            let low = try readFixed64()
            return .decimal128(Decimal128Bits(low: low, high: try readFixed64()))
        case .objectId:
            let head = try readFixed64()
            return .objectId(ObjectIdBits(head: head, tail: try readFixed32()))
        case .uuid:
            let high = try readFixed64()
            return .uuid(UUIDBits(high: high, low: try readFixed64()))
        case .link: return .link(try readLink())
        case .list, .set:
            let count = try readCount()
            var elements: [Value] = []
            elements.reserveCapacity(count)
            for _ in 0..<count { elements.append(try readValue(depth: depth + 1)) }
            return tag == .list ? .list(elements) : .set(elements)
        case .dictionary:
            let count = try readCount(minimumElementSize: 2)
            var map = ValueMap()
            for _ in 0..<count {
                let key = try readString()
                map[key] = try readValue(depth: depth + 1)
            }
            return .dictionary(map)
        }
    }

    mutating func readLink() throws -> ObjectLink {
        let table = try readVarint()
        guard let tableKey = UInt32(exactly: table) else { throw corrupt("table key out of range") }
        return ObjectLink(table: TableKey(tableKey), key: ObjectKey(try readSignedVarint()))
    }

    mutating func readInt() throws -> Int {
        let raw = try readSignedVarint()
        guard let value = Int(exactly: raw) else { throw corrupt("integer out of range") }
        return value
    }

    mutating func readTableKey() throws -> TableKey {
        let raw = try readVarint()
        guard let key = UInt32(exactly: raw) else { throw corrupt("table key out of range") }
        return TableKey(key)
    }
}
