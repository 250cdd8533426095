import Foundation
import StrataEngine

/// A value of any Realm type, as Realm Swift's `AnyRealmValue` (a "mixed" property).
///
/// It cannot be optional: `.none` stands for null. Lists and dictionaries nest to any depth
/// (Strata accepts up to 100 levels); a nested collection read from a managed object is live and
/// can be changed in place inside a write.
public enum AnyRealmValue: Hashable {
    /// Null.
    case none
    /// An integer.
    case int(Int)
    /// A boolean.
    case bool(Bool)
    /// A float.
    case float(Float)
    /// A double.
    case double(Double)
    /// A string.
    case string(String)
    /// Binary data.
    case data(Data)
    /// A date.
    case date(Date)
    /// A link to an object.
    case object(Object)
    /// An object id.
    case objectId(ObjectId)
    /// A decimal.
    case decimal128(Decimal128)
    /// A UUID.
    case uuid(UUID)
    /// A nested list of mixed values.
    case list(List<AnyRealmValue>)
    /// A nested dictionary of mixed values.
    case dictionary(Map<String, AnyRealmValue>)

    /// The deepest nesting of lists and dictionaries Strata stores.
    static let maximumNesting = 100

    /// A `.list` holding `array`'s values (unmanaged until assigned to a managed object).
    public static func fromArray(_ array: [AnyRealmValue]) -> AnyRealmValue {
        let list = List<AnyRealmValue>()
        list.append(objectsIn: array)
        return .list(list)
    }

    /// A `.dictionary` holding `dictionary`'s entries.
    public static func fromDictionary(_ dictionary: [String: AnyRealmValue]) -> AnyRealmValue {
        let map = Map<String, AnyRealmValue>()
        for (key, value) in dictionary { map[key] = value }
        return .dictionary(map)
    }

    /// The value if it is an `.int`.
    public var intValue: Int? { if case .int(let value) = self { value } else { nil } }
    /// The value if it is a `.bool`.
    public var boolValue: Bool? { if case .bool(let value) = self { value } else { nil } }
    /// The value if it is a `.float`.
    public var floatValue: Float? { if case .float(let value) = self { value } else { nil } }
    /// The value if it is a `.double`.
    public var doubleValue: Double? { if case .double(let value) = self { value } else { nil } }
    /// The value if it is a `.string`.
    public var stringValue: String? { if case .string(let value) = self { value } else { nil } }
    /// The value if it is a `.data`.
    public var dataValue: Data? { if case .data(let value) = self { value } else { nil } }
    /// The value if it is a `.date`.
    public var dateValue: Date? { if case .date(let value) = self { value } else { nil } }
    /// The value if it is an `.objectId`.
    public var objectIdValue: ObjectId? { if case .objectId(let value) = self { value } else { nil } }
    /// The value if it is a `.decimal128`.
    public var decimal128Value: Decimal128? { if case .decimal128(let value) = self { value } else { nil } }
    /// The value if it is a `.uuid`.
    public var uuidValue: UUID? { if case .uuid(let value) = self { value } else { nil } }
    /// The list if it is a `.list`.
    public var listValue: List<AnyRealmValue>? { if case .list(let value) = self { value } else { nil } }
    /// The dictionary if it is a `.dictionary`.
    public var dictionaryValue: Map<String, AnyRealmValue>? { if case .dictionary(let value) = self { value } else { nil } }

    /// The object if it is an `.object` of type `objectType`.
    public func object<T: Object>(_ objectType: T.Type) -> T? {
        if case .object(let object) = self { return object as? T }
        return nil
    }
}

extension AnyRealmValue: RealmCollectionValue, _Indexable {
    public static var _rlmColumn: _ColumnDescription { _ColumnDescription(.mixed, isOptional: true) }

    public static func _rlmDefaultValue() -> AnyRealmValue { .none }

    public static func _rlmFromStored(_ value: StrataEngine.Value, _ context: _ReadContext) -> AnyRealmValue {
        switch value {
        case .null: return .none
        case .bool(let flag): return .bool(flag)
        case .int(let number): return .int(Int(number))
        case .float(let number): return .float(number)
        case .double(let number): return .double(number)
        case .string(let string): return .string(string)
        case .binary(let bytes): return .data(Data(bytes))
        case .timestamp(let time): return .date(Date(time))
        case .decimal128(let bits): return .decimal128(Decimal128(bits))
        case .objectId(let bits): return .objectId(ObjectId(bits))
        case .uuid(let bits): return .uuid(UUID(bits))
        case .link(let link):
            return context.realm.accessor(for: link, as: Object.self).map { .object($0) } ?? .none
        case .list, .set: return .list(List(location: CollectionLocation(context)))
        case .dictionary: return .dictionary(Map(location: CollectionLocation(context)))
        }
    }

    public func _rlmToStored(_ context: _WriteContext) -> StrataEngine.Value {
        stored(context, depth: 0)
    }

    /// The stored form; `depth` is the number of collections this value is inside.
    private func stored(_ context: _WriteContext, depth: Int) -> StrataEngine.Value {
        switch self {
        case .list, .dictionary:
            guard depth < Self.maximumNesting else {
                context.realm.recordWriteFailure(Realm.Error(
                    Realm.Error.invalidInput,
                    "Nested collections in an AnyRealmValue are limited to \(Self.maximumNesting) levels"))
                return .null
            }
        default: break
        }
        switch self {
        case .none: return .null
        case .int(let number): return .int(Int64(number))
        case .bool(let flag): return .bool(flag)
        case .float(let number): return .float(number)
        case .double(let number): return .double(number)
        case .string(let string): return string._rlmToStored(context)
        case .data(let data): return data._rlmToStored(context)
        case .date(let date): return .timestamp(Timestamp(date))
        case .object(let object): return object._rlmToStored(context)
        case .objectId(let id): return .objectId(id.bits)
        case .decimal128(let decimal): return .decimal128(decimal.bits)
        case .uuid(let uuid): return .uuid(UUIDBits(uuid))
        case .list(let list): return .list(list.map { $0.stored(context, depth: depth + 1) })
        case .dictionary(let map):
            var stored = ValueMap()
            for (key, value) in map.asKeyValueSequence() {
                if let failure = Map<String, AnyRealmValue>.invalidKey(key) {
                    context.realm.recordWriteFailure(failure)
                    return .null
                }
                stored[key] = value.stored(context, depth: depth + 1)
            }
            return .dictionary(stored)
        }
    }

    public static func _rlmFromAny(_ value: Any) -> AnyRealmValue? {
        // A nil given through `Any` (`["a", nil]` as `[Any?]`) is `.none`, as `NSNull` is.
        guard let value = KeyValueCoding.flattened(value) else { return AnyRealmValue.none }
        switch value {
        case let mixed as AnyRealmValue: return mixed
        case is NSNull: return AnyRealmValue.none
        case let number as Float where !(type(of: value) is NSNumber.Type): return .float(number)
        case _ where LooseNumber(value) != nil:
            switch LooseNumber(value)! {
            case .bool(let flag): return .bool(flag)
            case .integer(let number): return .int(Int(number))
            case .unsigned(let number): return Int(exactly: number).map(AnyRealmValue.int) ?? .double(Double(number))
            case .floating(let number): return .double(number)
            }
        case let string as String: return .string(string)
        case let data as Data: return .data(data)
        case let date as Date: return .date(date)
        case let object as Object: return .object(object)
        case let id as ObjectId: return .objectId(id)
        case let decimal as Decimal128: return .decimal128(decimal)
        case let uuid as UUID: return .uuid(uuid)
        case let array as [Any]:
            let values = array.compactMap(_rlmFromAny)
            return values.count == array.count ? fromArray(values) : nil
        case let dictionary as [String: Any]:
            let values = dictionary.compactMapValues(_rlmFromAny)
            return values.count == dictionary.count ? fromDictionary(values) : nil
        default: return nil
        }
    }
}
