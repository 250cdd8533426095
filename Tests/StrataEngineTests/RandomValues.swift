@testable import StrataEngine

/// Random engine values for property tests: every `Value` kind, with the awkward cases
/// weighted up (extreme and non-finite numbers, odd Unicode, empty and nested collections, and
/// nesting at and past the decoder's limit).
struct RandomValues {
    var random: SeededRandom

    init(seed: UInt64) { random = SeededRandom(seed: seed) }

    mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &random) < percent }

    mutating func pick<T>(_ choices: [T]) -> T { choices[Int.random(in: 0..<choices.count, using: &random)] }

    private static let extremeInts: [Int64] = [0, 1, -1, .max, .min, .max - 1, .min + 1, 1 << 53, -(1 << 53) - 1]
    private static let extremeDoubles: [Double] = [
        0, -0.0, .nan, -.nan, Double(nan: 0x1234, signaling: false), .infinity, -.infinity,
        .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .leastNonzeroMagnitude, .leastNormalMagnitude,
        .ulpOfOne, 1e300, -1e-300, 9.2233720368547758e18,
    ]
    private static let extremeFloats: [Float] = [
        0, -0.0, .nan, .infinity, -.infinity, .greatestFiniteMagnitude, .leastNonzeroMagnitude,
        Float(nan: 7, signaling: false),
    ]

    mutating func int() -> Int64 {
        if chance(40) { return pick(Self.extremeInts) }
        let shift = Int64.random(in: 0...63, using: &random)
        return Int64(bitPattern: random.next()) >> shift
    }

    mutating func double() -> Double {
        chance(50) ? pick(Self.extremeDoubles) : Double(bitPattern: random.next())
    }

    mutating func float() -> Float {
        chance(50) ? pick(Self.extremeFloats) : Float(bitPattern: UInt32(truncatingIfNeeded: random.next()))
    }

    /// Pieces that trip string handling: combining marks (the precomposed and decomposed forms
    /// of the same text compare equal in Swift), emoji sequences, controls, NUL, BOM, RTL marks,
    /// noncharacters, astral-plane letters.
    private static let oddPieces: [String] = [
        "", "a", "é", "e\u{301}", "Å", "A\u{30A}", "\u{212B}", "👩‍👩‍👧‍👦", "🏳️‍🌈", "\u{0}", "\u{1}", "\u{7F}",
        "\u{FEFF}", "\u{200B}", "\u{200D}", "\u{202E}abc", "\u{FFFF}", "\u{FFFE}", "\u{10FFFF}", "𝔘𝔫𝔦", "ß", "İ",
        "\r\n", "\t", "\\", "\"", ".", "$", "ﷺ", "\u{0301}\u{0301}\u{0301}", "한국어", "ｗｉｄｅ",
    ]

    mutating func string() -> String {
        if chance(3) {
            let count = Int.random(in: 1_000...5_000, using: &random)
            return String(repeating: pick(Self.oddPieces) + "x", count: count)
        }
        var text = ""
        for _ in 0..<Int.random(in: 0...6, using: &random) {
            let ascii = UInt8.random(in: 32...126, using: &random)
            text += chance(60) ? pick(Self.oddPieces) : String(UnicodeScalar(ascii))
        }
        return text
    }

    mutating func binary() -> [UInt8] {
        let count = chance(20) ? 0 : Int.random(in: 1...64, using: &random)
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
    }

    mutating func timestamp() -> Timestamp {
        if chance(40) {
            let extremes: [Timestamp] = [Timestamp(seconds: .max, nanoseconds: 999_999_999), Timestamp(seconds: .min),
                                         Timestamp(seconds: 0), Timestamp(seconds: -1, nanoseconds: 999_999_999)]
            return pick(extremes)
        }
        return Timestamp(seconds: int(), nanoseconds: Int32.random(in: 0..<1_000_000_000, using: &random))
    }

    /// A non-null scalar of `type` (not a link).
    mutating func scalar(_ type: ValueType) -> Value {
        switch type {
        case .bool: return .bool(chance(50))
        case .int: return .int(int())
        case .float: return .float(float())
        case .double: return .double(double())
        case .string: return .string(string())
        case .binary: return .binary(binary())
        case .timestamp: return .timestamp(timestamp())
        case .decimal128: return .decimal128(Decimal128Bits(low: random.next(), high: random.next()))
        case .objectId:
            return .objectId(ObjectIdBits(head: random.next(), tail: UInt32(truncatingIfNeeded: random.next())))
        case .uuid: return .uuid(UUIDBits(high: random.next(), low: random.next()))
        case .mixed: return mixed(depth: 0)
        case .link: return .null
        }
    }

    static let scalarTypes: [ValueType] = [.bool, .int, .float, .double, .string, .binary, .timestamp, .decimal128,
                                           .objectId, .uuid]

    /// A mixed value at `depth` below its column value: a scalar, null, or a nested list or
    /// dictionary (rarely a chain reaching exactly `levels` levels in all).
    mutating func mixed(depth: Int) -> Value {
        if chance(2) { return chain(levels: maximumValueNesting - depth) }
        if depth < 4, chance(25) {
            let count = chance(20) ? 0 : Int.random(in: 1...4, using: &random)
            if chance(50) { return .list((0..<count).map { _ in mixed(depth: depth + 1) }) }
            var map = ValueMap()
            for _ in 0..<count { map[string()] = mixed(depth: depth + 1) }
            return .dictionary(map)
        }
        return chance(10) ? .null : scalar(pick(Self.scalarTypes))
    }

    /// Lists (or dictionaries) nested so that the innermost value sits `levels - 1` levels down:
    /// storable at depth 0 exactly when `levels <= maximumValueNesting`.
    mutating func chain(levels: Int) -> Value {
        var value: Value = chance(50) ? .int(int()) : .string(string())
        for _ in 1..<max(levels, 1) {
            if chance(50) {
                value = .list([value])
            } else {
                var map = ValueMap()
                map[string()] = value
                value = .dictionary(map)
            }
        }
        return value
    }
}
