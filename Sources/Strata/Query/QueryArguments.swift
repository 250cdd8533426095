import Foundation
import StrataEngine
import StrataQuery

/// Converts Swift values given to queries (`filter("age > $0", 3)`, `$0.name == "Rex"`) into
/// the query layer's values.
enum QueryArguments {
    /// A `$n` argument of a query string.
    static func argument(_ value: Any) -> QueryArgument {
        switch value {
        case let box as GeoBox: return .geo(box.shape)
        case let circle as GeoCircle: return .geo(circle.shape)
        case let polygon as GeoPolygon: return .geo(polygon.shape)
        default: return .value(stored(value))
        }
    }

    /// The stored form of a loosely typed value; objects must be managed (an unmanaged object
    /// matches nothing).
    static func stored(_ value: Any) -> StrataEngine.Value {
        let value = Realm.unwrapped(value)
        switch value {
        case is NSNull: return .null
        // An `NSNumber` object (from `JSONSerialization`), before `Bool`: a 1 must not read as true.
        case let number as NSNumber where type(of: value) is AnyObject.Type: return storedNumber(number)
        case let flag as Bool: return .bool(flag)
        case let number as Int: return .int(Int64(number))
        case let number as Int8: return .int(Int64(number))
        case let number as Int16: return .int(Int64(number))
        case let number as Int32: return .int(Int64(number))
        case let number as Int64: return .int(number)
        case let number as Float: return .float(number)
        case let number as Double: return .double(number)
        case let string as String: return .string(string)
        case let data as Data: return .binary(Array(data))
        case let date as Date: return .timestamp(Timestamp(date))
        case let uuid as UUID: return .uuid(UUIDBits(uuid))
        case let id as ObjectId: return .objectId(id.bits)
        case let decimal as Decimal128: return .decimal128(decimal.bits)
        case let object as ObjectBase:
            guard let handle = object.handle else { return .link(ObjectLink(table: TableKey(.max), key: ObjectKey(-1))) }
            return .link(ObjectLink(table: handle.table.key, key: handle.key))
        case let mixed as AnyRealmValue:
            if case .object(let object) = mixed { return stored(object) }
            return mixed._rlmToStoredDetached()
        case let array as [Any]: return .list(array.map(stored))
        case let set as Set<AnyHashable>: return .list(set.map { stored($0.base) })
        case let collection as any RealmCollection: return .list(storedElements(of: collection))
        case let custom as any _CustomPersistable: return stored(custom.persistableValue)
        case let raw as any RawRepresentable: return stored(raw.rawValue)
        default: return .string("\(value)")
        }
    }

    /// The stored elements of a `Results`, `List`, `MutableSet` or `LinkingObjects` given for
    /// `IN %@`.
    private static func storedElements<C: RealmCollection>(of collection: C) -> [StrataEngine.Value] {
        collection.map { stored($0) }
    }

    /// An `NSNumber` (from `JSONSerialization` or Objective-C style code) as the kind it holds:
    /// a bool, a double for floating point, otherwise an integer.
    private static func storedNumber(_ number: NSNumber) -> StrataEngine.Value {
        switch String(cString: number.objCType) {
        case "c", "B": return .bool(number.boolValue)
        case "f", "d": return .double(number.doubleValue)
        case "Q", "L":
            let unsigned = number.uint64Value
            return unsigned <= UInt64(Int64.max) ? .int(Int64(unsigned)) : .double(number.doubleValue)
        default: return .int(number.int64Value)
        }
    }

    /// `double` rounded toward zero and clamped to the `Int64` range (NaN is 0): the average of
    /// `Int.max` and `Int.max` is exactly 2^63 as a `Double`, which `Int64(_:)` traps on.
    static func saturatingInt64(_ double: Double) -> Int64 {
        if double.isNaN { return 0 }
        if double >= 9_223_372_036_854_775_808.0 { return .max }
        if double <= -9_223_372_036_854_775_808.0 { return .min }
        return Int64(double.rounded(.towardZero))
    }

    /// `a AND b`, dropping `TRUEPREDICATE`s.
    static func conjoin(_ a: QueryPredicate, _ b: QueryPredicate) -> QueryPredicate {
        switch (a, b) {
        case (.constant(true), _): return b
        case (_, .constant(true)): return a
        case (.and(let left), .and(let right)): return .and(left + right)
        case (.and(let left), _): return .and(left + [b])
        case (_, .and(let right)): return .and([a] + right)
        default: return .and([a, b])
        }
    }

    /// An aggregate result in the stored kind of `T` (e.g. an int sum read as `Double`).
    static func convert<T: _Persistable>(_ value: StrataEngine.Value, to type: T.Type) -> StrataEngine.Value {
        let number = ValueNumber.double(value)
        switch T._rlmColumn.type {
        case .int: return number.map { .int(Self.saturatingInt64($0)) } ?? value
        case .double: return number.map { .double($0) } ?? value
        case .float: return number.map { .float(Float($0)) } ?? value
        default: return value
        }
    }
}

/// Numbers of stored values, for conversions.
enum ValueNumber {
    static func double(_ value: StrataEngine.Value) -> Double? {
        switch value {
        case .int(let n): Double(n)
        case .float(let n): Double(n)
        case .double(let n): n
        case .decimal128(let bits): Decimal128(bits).doubleValue
        default: nil
        }
    }
}

extension AnyRealmValue {
    /// The stored form of a value that holds no objects, without a Realm.
    func _rlmToStoredDetached() -> StrataEngine.Value {
        switch self {
        case .none: .null
        case .int(let n): .int(Int64(n))
        case .bool(let b): .bool(b)
        case .float(let n): .float(n)
        case .double(let n): .double(n)
        case .string(let s): .string(s)
        case .data(let d): .binary(Array(d))
        case .date(let d): .timestamp(Timestamp(d))
        case .objectId(let id): .objectId(id.bits)
        case .decimal128(let d): .decimal128(d.bits)
        case .uuid(let u): .uuid(UUIDBits(u))
        case .object(let object): QueryArguments.stored(object)
        case .list(let list): .list(list.map { $0._rlmToStoredDetached() })
        case .dictionary(let map): .dictionary(ValueMap(map.asKeyValueSequence().map { ($0.key, $0.value._rlmToStoredDetached()) }))
        }
    }
}
