/// A strict JSON parser for request lines (RFC 8259), straight from bytes to ``JSONValue``: one
/// pass that also enforces the nesting limit, and errors that name the byte offset.
struct JSONParser {
    private let bytes: [UInt8]
    private var position = 0
    private let maxDepth: Int

    /// A parse failure: what was expected, and where.
    struct Failure: Error {
        let message: String
        let offset: Int
        let isTooDeep: Bool
        /// A well-formed number that no `Int64` or finite `Double` holds.
        var isOutOfRange = false
    }

    /// Parses one JSON value filling all of `bytes` (whitespace around it allowed).
    static func parse(_ bytes: [UInt8], maxDepth: Int) throws(Failure) -> JSONValue {
        var parser = JSONParser(bytes: bytes, maxDepth: maxDepth)
        parser.skipWhitespace()
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.position == bytes.count else { throw parser.failure("unexpected data after the value") }
        return value
    }

    private init(bytes: [UInt8], maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    private func failure(_ message: String) -> Failure {
        Failure(message: "\(message) at byte \(position)", offset: position, isTooDeep: false)
    }

    private mutating func skipWhitespace() {
        while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
    }

    private mutating func value(depth: Int) throws(Failure) -> JSONValue {
        guard position < bytes.count else { throw failure("unexpected end of input") }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try object(depth: depth + 1)
        case UInt8(ascii: "["): return try array(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw failure("expected a value")
        }
    }

    private mutating func literal(_ word: StaticString, _ value: JSONValue) throws(Failure) -> JSONValue {
        let length = word.utf8CodeUnitCount
        guard position + length <= bytes.count,
              word.withUTF8Buffer({ Array($0) }) == Array(bytes[position..<position + length]) else {
            throw failure("expected a value")
        }
        position += length
        return value
    }

    private mutating func object(depth: Int) throws(Failure) -> JSONValue {
        guard depth <= maxDepth else { throw Failure(message: "too deep", offset: position, isTooDeep: true) }
        position += 1
        var fields: [String: JSONValue] = [:]
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
            position += 1
            return .object(fields)
        }
        while true {
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw failure("expected a key") }
            let key = try string()
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw failure("expected ':'") }
            position += 1
            // A duplicate key is refused rather than merged (RFC 8259 leaves its meaning open): a
            // later value would silently replace an earlier one. Swift's `String` equality finds
            // keys that are the same text in another Unicode form too; the store's maps take keys
            // as Swift strings and would merge those as well.
            guard fields[key] == nil else { throw duplicateKey(key) }
            skipWhitespace()
            fields[key] = try value(depth: depth)
            skipWhitespace()
            guard position < bytes.count else { throw failure("unexpected end of input") }
            if bytes[position] == UInt8(ascii: ",") {
                position += 1
                continue
            }
            guard bytes[position] == UInt8(ascii: "}") else { throw failure("expected ',' or '}'") }
            position += 1
            return .object(fields)
        }
    }

    private func duplicateKey(_ key: String) -> Failure {
        let shown = key.unicodeScalars.count > 40 ? String(String.UnicodeScalarView(key.unicodeScalars.prefix(40))) + "…" : key
        return failure("a duplicate key \"\(shown)\" (keys equal as Unicode text, in any normalization form, are "
                       + "duplicates)")
    }

    private mutating func array(depth: Int) throws(Failure) -> JSONValue {
        guard depth <= maxDepth else { throw Failure(message: "too deep", offset: position, isTooDeep: true) }
        position += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
            position += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try value(depth: depth))
            skipWhitespace()
            guard position < bytes.count else { throw failure("unexpected end of input") }
            if bytes[position] == UInt8(ascii: ",") {
                position += 1
                continue
            }
            guard bytes[position] == UInt8(ascii: "]") else { throw failure("expected ',' or ']'") }
            position += 1
            return .array(elements)
        }
    }

    private mutating func string() throws(Failure) -> String {
        position += 1
        var scalars = String.UnicodeScalarView()
        var start = position
        var plain: [UInt8] = []
        while true {
            guard position < bytes.count else { throw failure("unterminated string") }
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                plain.append(contentsOf: bytes[start..<position])
                position += 1
                break
            }
            if byte < 0x20 { throw failure("a control character in a string") }
            if byte == UInt8(ascii: "\\") {
                plain.append(contentsOf: bytes[start..<position])
                position += 1
                guard position < bytes.count else { throw failure("unterminated escape") }
                let escape = bytes[position]
                position += 1
                let scalar: Unicode.Scalar
                switch escape {
                case UInt8(ascii: "\""): scalar = "\""
                case UInt8(ascii: "\\"): scalar = "\\"
                case UInt8(ascii: "/"): scalar = "/"
                case UInt8(ascii: "b"): scalar = "\u{08}"
                case UInt8(ascii: "f"): scalar = "\u{0C}"
                case UInt8(ascii: "n"): scalar = "\n"
                case UInt8(ascii: "r"): scalar = "\r"
                case UInt8(ascii: "t"): scalar = "\t"
                case UInt8(ascii: "u"): scalar = try unicodeEscape()
                default: throw failure("an invalid escape")
                }
                scalars.append(contentsOf: String(decoding: plain, as: UTF8.self).unicodeScalars)
                plain.removeAll(keepingCapacity: true)
                scalars.append(scalar)
                start = position
                continue
            }
            position += 1
        }
        scalars.append(contentsOf: String(decoding: plain, as: UTF8.self).unicodeScalars)
        return String(scalars)
    }

    private mutating func hex4() throws(Failure) -> UInt32 {
        guard position + 4 <= bytes.count else { throw failure("a short \\u escape") }
        var value: UInt32 = 0
        for byte in bytes[position..<position + 4] {
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw failure("an invalid \\u escape")
            }
            value = value * 16 + digit
        }
        position += 4
        return value
    }

    private mutating func unicodeEscape() throws(Failure) -> Unicode.Scalar {
        let first = try hex4()
        if (0xD800..<0xDC00).contains(first) {
            guard position + 2 <= bytes.count, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u")
            else { throw failure("a lone surrogate") }
            position += 2
            let second = try hex4()
            guard (0xDC00..<0xE000).contains(second),
                  let scalar = Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)) else {
                throw failure("a lone surrogate")
            }
            return scalar
        }
        guard let scalar = Unicode.Scalar(first) else { throw failure("a lone surrogate") }
        return scalar
    }

    private mutating func number() throws(Failure) -> JSONValue {
        let start = position
        var isInteger = true
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        guard position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) else {
            throw failure("expected a digit")
        }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
        } else {
            while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) { position += 1 }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            let digits = position
            while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) { position += 1 }
            guard position > digits else { throw failure("expected a digit") }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            isInteger = false
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
            let digits = position
            while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) { position += 1 }
            guard position > digits else { throw failure("expected a digit") }
        }
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        if isInteger {
            // An integer is kept exact or refused, never rounded to a double.
            guard let integer = Int64(text) else {
                throw Failure(message: "the integer \(text.prefix(40)) does not fit in 64 bits at byte \(start)",
                              offset: start, isTooDeep: false, isOutOfRange: true)
            }
            return .int(integer)
        }
        guard let double = Double(text), double.isFinite else {
            throw Failure(message: "the number \(text.prefix(40)) is beyond a double's range at byte \(start)",
                          offset: start, isTooDeep: false, isOutOfRange: true)
        }
        return .double(double)
    }
}
