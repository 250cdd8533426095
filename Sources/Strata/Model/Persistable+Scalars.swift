import Foundation
import StrataEngine

// MARK: - Integers

/// The integer types Realm stores in an int column.
public protocol _PersistableInteger: _Persistable, _PersistableInsideOptional, _PrimaryKey, _Indexable,
    FixedWidthInteger {}

extension _PersistableInteger {
    public static var _rlmColumn: _ColumnDescription { _ColumnDescription(.int) }
    public static func _rlmDefaultValue() -> Self { 0 }
    @inlinable
    public static func _rlmFromStored(_ value: StrataEngine.Value, _ context: _ReadContext) -> Self {
        guard case .int(let number) = value else { return 0 }
        return Self(truncatingIfNeeded: number)
    }
    public func _rlmToStored(_ context: _WriteContext) -> StrataEngine.Value { .int(Int64(self)) }
    public static func _rlmFromAny(_ value: Any) -> Self? {
        LooseNumber(value)?.integer(as: Self.self)
    }
}

extension Int: _PersistableInteger {}
extension Int8: _PersistableInteger {}
extension Int16: _PersistableInteger {}
extension Int32: _PersistableInteger {}
extension Int64: _PersistableInteger {}

// MARK: - Bool, Float, Double

extension Bool: _Persistable, _PersistableInsideOptional, _Indexable {
    public static var _rlmColumn: _ColumnDescription { _ColumnDescription(.bool) }
    public static func _rlmDefaultValue() -> Bool { false }
    @inlinable
    public static func _rlmFromStored(_ value: StrataEngine.Value, _ context: _ReadContext) -> Bool {
        if case .bool(let flag) = value { return flag }
        return false
    }
    public func _rlmToStored(_ context: _WriteContext) -> StrataEngine.Value { .bool(self) }
    public static func _rlmFromAny(_ value: Any) -> Bool? { LooseNumber(value)?.bool }
}

extension Float: _Persistable, _PersistableInsideOptional {
    public static var _rlmColumn: _ColumnDescription { _ColumnDescription(.float) }
    public static func _rlmDefaultValue() -> Float { 0 }
    @inlinable
    public static func _rlmFromStored(_ value: StrataEngine.Value, _ context: _ReadContext) -> Float {
        if case .float(let number) = value { return number }
        return 0
    }
    public func _rlmToStored(_ context: _WriteContext) -> StrataEngine.Value { .float(self) }
    public static func _rlmFromAny(_ value: Any) -> Float? { LooseNumber(value)?.float }
}

extension Double: _Persistable, _PersistableInsideOptional {
    public static var _rlmColumn: _ColumnDescription { _ColumnDescription(.double) }
    public static func _rlmDefaultValue() -> Double { 0 }
    @inlinable
    public static func _rlmFromStored(_ value: StrataEngine.Value, _ context: _ReadContext) -> Double {
        if case .double(let number) = value { return number }
        return 0
    }
    public func _rlmToStored(_ context: _WriteContext) -> StrataEngine.Value { .double(self) }
    public static func _rlmFromAny(_ value: Any) -> Double? { LooseNumber(value)?.double }
}

// MARK: - String and Data

/// The largest string Realm stores, in UTF-8 bytes (§2.13).
let maximumStringSize = 0xFF_FFFF - 16
/// The largest binary value Realm stores, in bytes (§2.13).
let maximumDataSize = 0xFF_FFFF - 15

extension String: _Persistable, _PersistableInsideOptional, _PrimaryKey, _Indexable {
    public static var _rlmColumn: _ColumnDescription { _ColumnDescription(.string) }
    public static func _rlmDefaultValue() -> String { "" }
    @inlinable
    public static func _rlmFromStored(_ value: StrataEngine.Value, _ context: _ReadContext) -> String {
        if case .string(let string) = value { return string }
        return ""
    }
    public func _rlmToStored(_ context: _WriteContext) -> StrataEngine.Value {
        guard utf8.count <= maximumStringSize else {
            context.realm.recordWriteFailure(Realm.Error(
                Realm.Error.invalidInput, "String too big: \(utf8.count) bytes; the limit is \(maximumStringSize)"))
            return .string("")
        }
        return .string(self)
    }
}

extension Data: _Persistable, _PersistableInsideOptional {
    public static var _rlmColumn: _ColumnDescription { _ColumnDescription(.binary) }
    public static func _rlmDefaultValue() -> Data { Data() }
    public static func _rlmFromStored(_ value: StrataEngine.Value, _ context: _ReadContext) -> Data {
        if case .binary(let bytes) = value { return Data(bytes) }
        return Data()
    }
    public func _rlmToStored(_ context: _WriteContext) -> StrataEngine.Value {
        guard count <= maximumDataSize else {
            context.realm.recordWriteFailure(Realm.Error(
                Realm.Error.invalidInput, "Binary too big: \(count) bytes; the limit is \(maximumDataSize)"))
            return .binary([])
        }
        return .binary(Array(self))
    }
}

// MARK: - Date and UUID

extension Date: _Persistable, _PersistableInsideOptional, _Indexable {
    public static var _rlmColumn: _ColumnDescription { _ColumnDescription(.timestamp) }
    public static func _rlmDefaultValue() -> Date { Date() }
    public static var _rlmDefaultIsGenerated: Bool { true }
    public static func _rlmFromStored(_ value: StrataEngine.Value, _ context: _ReadContext) -> Date {
        guard case .timestamp(let time) = value else { return Date(timeIntervalSince1970: 0) }
        return Date(time)
    }
    public func _rlmToStored(_ context: _WriteContext) -> StrataEngine.Value { .timestamp(Timestamp(self)) }
}

extension Date {
    /// The date a stored timestamp stands for.
    init(_ time: Timestamp) {
        self = time.date
    }
}

extension UUID: _Persistable, _PersistableInsideOptional, _PrimaryKey, _Indexable {
    public static var _rlmColumn: _ColumnDescription { _ColumnDescription(.uuid) }
    public static func _rlmDefaultValue() -> UUID { UUID() }
    public static var _rlmDefaultIsGenerated: Bool { true }
    public static func _rlmFromStored(_ value: StrataEngine.Value, _ context: _ReadContext) -> UUID {
        guard case .uuid(let bits) = value else { return UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) }
        return UUID(bits)
    }
    public func _rlmToStored(_ context: _WriteContext) -> StrataEngine.Value { .uuid(UUIDBits(self)) }
    public static func _rlmFromAny(_ value: Any) -> UUID? {
        switch value {
        case let uuid as UUID: return uuid
        case let string as String: return UUID(uuidString: string)
        default: return nil
        }
    }
}

extension UUID {
    init(_ bits: UUIDBits) {
        var bytes = [UInt8](repeating: 0, count: 16)
        withUnsafeBytes(of: bits.high.bigEndian) { bytes.replaceSubrange(0..<8, with: $0) }
        withUnsafeBytes(of: bits.low.bigEndian) { bytes.replaceSubrange(8..<16, with: $0) }
        self.init(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                         bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }
}

extension UUIDBits {
    init(_ uuid: UUID) {
        let bytes = withUnsafeBytes(of: uuid.uuid) { Array($0) }
        let high = bytes[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let low = bytes[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        self.init(high: high, low: low)
    }
}

// MARK: - Optional

extension Optional: _Persistable where Wrapped: _PersistableInsideOptional {
    /// An optional is stored as its wrapped type's stored type, optional.
    public typealias PersistedType = Wrapped.PersistedType?

    public static var _rlmColumn: _ColumnDescription { Wrapped._rlmColumn.optional() }
    public static func _rlmDefaultValue() -> Wrapped? { nil }
    public static func _rlmFromStored(_ value: StrataEngine.Value, _ context: _ReadContext) -> Wrapped? {
        value.isNull ? nil : Wrapped._rlmFromStoredIfValid(value, context)
    }
    public func _rlmToStored(_ context: _WriteContext) -> StrataEngine.Value {
        map { $0._rlmToStored(context) } ?? .null
    }
    public static func _rlmTracePlaceholder(_ tracer: KeyPathTracer) -> Wrapped?? {
        Wrapped._rlmTracePlaceholder(tracer).map { .some($0) }
    }

    public static var _rlmDynamicType: any _Persistable.Type {
        func optional<T: _PersistableInsideOptional>(_: T.Type) -> any _Persistable.Type { T?.self }
        guard let wrapped = Wrapped._rlmDynamicType as? any _PersistableInsideOptional.Type else { return Self.self }
        return optional(wrapped)
    }

    public var _rlmDynamicValue: Any {
        switch self {
        case .some(let wrapped): wrapped._rlmDynamicValue
        case .none: Self.none as Any
        }
    }

    public static func _rlmFromAny(_ value: Any) -> Wrapped?? {
        // nil or NSNull, through any optional layers (`Optional<Any>.some(NSNull())`).
        if LooseSequence.isAbsent(value) { return .some(nil) }
        return Wrapped._rlmFromAny(value).map { .some($0) }
    }
}

extension Optional: _RealmSchemaDiscoverable where Wrapped: _RealmSchemaDiscoverable {}
extension Optional: _PrimaryKey where Wrapped: _PrimaryKey & _PersistableInsideOptional {}
extension Optional: _Indexable where Wrapped: _Indexable & _PersistableInsideOptional {}
