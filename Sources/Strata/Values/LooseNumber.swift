import Foundation

/// A number given as a loosely typed value (`Object(value:)`, `create(_:value:)`, key-value
/// coding), classified as Realm classifies an `NSNumber`: by what it holds, not by what Swift's
/// bridging casts would make of it.
///
/// `JSONSerialization` produces `NSNumber`s. On Linux `NSNumber` does not cast to
/// `any BinaryInteger`, and a boolean `NSNumber` casts to `Int` (and an integer one to `Double`),
/// so the type has to be read from `objCType` (`c` is a boolean, `f`/`d` are floating point,
/// everything else is an integer) before any cast.
enum LooseNumber {
    case integer(Int64)
    case unsigned(UInt64)
    case floating(Double)
    case bool(Bool)

    /// The number `value` holds, or nil when it is not a number.
    init?(_ value: Any) {
        if type(of: value) is NSNumber.Type, let number = value as? NSNumber {
            switch UInt8(bitPattern: number.objCType.pointee) {
            case UInt8(ascii: "c"), UInt8(ascii: "B"): self = .bool(number.boolValue)
            case UInt8(ascii: "f"), UInt8(ascii: "d"): self = .floating(number.doubleValue)
            case UInt8(ascii: "Q"), UInt8(ascii: "L"): self = .unsigned(number.uint64Value)
            default: self = .integer(number.int64Value)
            }
            return
        }
        switch value {
        case let flag as Bool: self = .bool(flag)
        case let number as any BinaryInteger:
            if let signed = Int64(exactly: number) {
                self = .integer(signed)
            } else if let big = UInt64(exactly: number) {
                self = .unsigned(big)
            } else {
                return nil
            }
        case let number as any BinaryFloatingPoint: self = .floating(Double(number))
        default: return nil
        }
    }

    /// The number as an integer of type `T`, as Realm accepts for an int property: an integer
    /// (or boolean) that fits, or a floating-point number with an exact integer value.
    func integer<T: FixedWidthInteger>(as type: T.Type) -> T? {
        switch self {
        case .integer(let number): return T(exactly: number)
        case .unsigned(let number): return T(exactly: number)
        case .bool(let flag): return flag ? 1 : 0
        case .floating(let number): return T(exactly: number)
        }
    }

    /// The number as a `Double`, as Realm accepts for a double property: any number but a
    /// boolean.
    var double: Double? {
        switch self {
        case .integer(let number): return Double(number)
        case .unsigned(let number): return Double(number)
        case .floating(let number): return number
        case .bool: return nil
        }
    }

    /// The number as a `Float`, as Realm accepts for a float property: any number but a
    /// boolean, within `Float`'s range (or NaN).
    var float: Float? {
        guard let double else { return nil }
        guard double.isNaN || abs(double) <= Double(Float.greatestFiniteMagnitude) else { return nil }
        return Float(double)
    }

    /// The number as a `Bool`, as Realm accepts for a bool property: a boolean, or the
    /// integer 0 or 1.
    var bool: Bool? {
        switch self {
        case .bool(let flag): return flag
        case .integer(let number) where number == 0 || number == 1: return number == 1
        case .unsigned(let number) where number <= 1: return number == 1
        default: return nil
        }
    }
}
