import StrataEngine

extension Decimal128 {
    /// The decimal a stored value holds.
    init(_ bits: Decimal128Bits) { self.init(bid: (low: bits.low, high: bits.high)) }

    /// The stored form of the decimal.
    var bits: Decimal128Bits { Decimal128Bits(low: bid.low, high: bid.high) }
}

extension ObjectId {
    /// The object id a stored value holds.
    init(_ bits: ObjectIdBits) {
        var bytes: [UInt8] = []
        withUnsafeBytes(of: bits.head.bigEndian) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: bits.tail.bigEndian) { bytes.append(contentsOf: $0) }
        self.init(bytes: bytes)
    }

    /// The stored form of the object id.
    var bits: ObjectIdBits {
        let bytes = self.bytes
        return ObjectIdBits(head: bytes[0..<8].reduce(0) { $0 << 8 | UInt64($1) },
                            tail: bytes[8..<12].reduce(0) { $0 << 8 | UInt32($1) })
    }
}

extension Decimal128: _Persistable, _PersistableInsideOptional, RealmCollectionValue {
    public static var _rlmColumn: _ColumnDescription { _ColumnDescription(.decimal128) }
    public static func _rlmDefaultValue() -> Decimal128 { Decimal128() }
    public static func _rlmFromStored(_ value: StrataEngine.Value, _ context: _ReadContext) -> Decimal128 {
        if case .decimal128(let bits) = value { return Decimal128(bits) }
        return Decimal128()
    }
    public func _rlmToStored(_ context: _WriteContext) -> StrataEngine.Value { .decimal128(bits) }
    public static func _rlmFromAny(_ value: Any) -> Decimal128? {
        switch value {
        case let decimal as Decimal128: return decimal
        case let string as String: return Decimal128(string)
        default:
            switch LooseNumber(value) {
            case .integer(let number): return Decimal128(number)
            case .unsigned(let number): return Decimal128(number)
            case .floating(let number): return Decimal128(number)
            case .bool, nil: return nil
            }
        }
    }
}

extension ObjectId: _Persistable, _PersistableInsideOptional, _PrimaryKey, _Indexable, RealmCollectionValue {
    public static var _rlmColumn: _ColumnDescription { _ColumnDescription(.objectId) }
    public static func _rlmDefaultValue() -> ObjectId { ObjectId.generate() }
    public static var _rlmDefaultIsGenerated: Bool { true }
    public static func _rlmFromStored(_ value: StrataEngine.Value, _ context: _ReadContext) -> ObjectId {
        if case .objectId(let bits) = value { return ObjectId(bits) }
        return ObjectId(bytes: Array(repeating: 0, count: 12))
    }
    public func _rlmToStored(_ context: _WriteContext) -> StrataEngine.Value { .objectId(bits) }
    public static func _rlmFromAny(_ value: Any) -> ObjectId? {
        switch value {
        case let id as ObjectId: return id
        case let string as String: return try? ObjectId(string: string)
        default: return nil
        }
    }
}
