import Foundation

// Realm Swift's `AnyRealmValue` is not `Codable`; Strata codes it as the wrapped value, so a
// mixed property can take part in a synthesized `Codable` model.

extension AnyRealmValue: Encodable {
    /// Encodes the wrapped value as itself: `.none` as null, numbers, strings and booleans as
    /// such, `.data`, `.date`, `.uuid`, `.objectId` and `.decimal128` as their own `Codable`
    /// forms, `.list` as an array, `.dictionary` as an object, `.object` as the object when its
    /// class is `Encodable`.
    ///
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: `EncodingError.invalidValue` for an object whose class is not `Encodable`,
    ///   or whatever the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .none: try container.encodeNil()
        case .int(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        case .float(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .data(let value): try container.encode(value)
        case .date(let value): try container.encode(value)
        case .objectId(let value): try container.encode(value)
        case .decimal128(let value): try container.encode(value)
        case .uuid(let value): try container.encode(value)
        case .list(let value): try container.encode(value)
        case .dictionary(let value): try container.encode(value)
        case .object(let object):
            guard let encodable = object as? any Encodable else {
                throw EncodingError.invalidValue(object, EncodingError.Context(
                    codingPath: encoder.codingPath,
                    debugDescription: "'\(type(of: object).className())' in an AnyRealmValue is not Encodable"))
            }
            try container.encode(encodable)
        }
    }
}

extension AnyRealmValue: Decodable {
    /// Decodes a value as the JSON-like type it has: null as `.none`, then `.bool`, `.int`,
    /// `.double`, `.string`, an array as `.list` and an object as `.dictionary` (unmanaged).
    ///
    /// Strings stay strings (a date, an ObjectId or a UUID written as text is not recognised),
    /// so a value encoded as one of those decodes as `.string`.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: `DecodingError.dataCorrupted` when the value is none of these.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .none
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([AnyRealmValue].self) {
            self = .fromArray(value)
        } else if let value = try? container.decode([String: AnyRealmValue].self) {
            self = .fromDictionary(value)
        } else {
            throw DecodingError.dataCorruptedError(in: container,
                                                   debugDescription: "Cannot convert value to AnyRealmValue")
        }
    }
}
