// Codable for `@Persisted` properties, as Realm Swift declares it: a model class that adopts
// `Codable` gets a synthesized conformance that codes each property under its name.

extension Persisted: Decodable where Value: Decodable {
    /// Decodes the property's value through a single-value container, so the decoder's
    /// strategies apply (`JSONDecoder`'s `dateDecodingStrategy`, and `dataDecodingStrategy`
    /// with its Base64 default); the object being decoded is unmanaged.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: Whatever decoding `Value` throws; `DecodingError.valueNotFound` for a null
    ///   where `Value` is not optional.
    public init(from decoder: any Decoder) throws {
        self.init(wrappedValue: try decoder.singleValueContainer().decode(Value.self))
    }
}

extension Persisted: Encodable where Value: Encodable {
    /// Encodes the property's value through a single-value container, so the encoder's
    /// strategies apply (`JSONEncoder`'s `dateEncodingStrategy`, and `dataEncodingStrategy`
    /// with its Base64 default): the unmanaged value, or on a managed object the value in the
    /// Realm.
    ///
    /// Realm Swift throws here for managed objects; Strata reads the Realm, so managed objects
    /// encode with the synthesized conformance too.
    ///
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: Whatever encoding `Value` throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if managedProperty >= 0, let owner = managedOwner?.takeUnretainedValue(), let handle = owner.handle {
            try container.encode(handle.read(property: managedProperty, as: Value.self, of: owner))
            return
        }
        switch state {
        case .unmanaged(let value): try container.encode(value)
        case .unmanagedNoDefault: try container.encode(Value._rlmDefaultValue())
        // Made once and kept in the box the object's own storage shares: the object reads the
        // value this encoded.
        case .unmanagedGenerated(let generated): try container.encode(generated.value)
        }
    }
}

/// A property wrapper whose wrapped value can be nil, so a missing key decodes as nil, as Realm
/// Swift's protocol of that name.
///
/// An implementation detail of `Codable` for `@Persisted` optional properties.
public protocol OptionalCodingWrapper {
    /// The optional wrapped type.
    associatedtype WrappedType: ExpressibleByNilLiteral
    /// Creates the wrapper holding `wrappedValue`.
    init(wrappedValue: WrappedType)
}

extension Persisted: OptionalCodingWrapper where Value: ExpressibleByNilLiteral {}

extension KeyedDecodingContainer {
    /// Decodes an optional `@Persisted` property: a missing key gives nil rather than
    /// `DecodingError.keyNotFound`, as for a plain optional property.
    ///
    /// - Parameters:
    ///   - type: The wrapper type.
    ///   - key: The property's key.
    /// - Returns: The decoded wrapper, or one holding nil when the key is absent.
    /// - Throws: Whatever decoding a present value throws.
    public func decode<T: Decodable & OptionalCodingWrapper>(_ type: T.Type, forKey key: Key) throws -> T {
        try decodeIfPresent(T.self, forKey: key) ?? T(wrappedValue: nil)
    }
}
