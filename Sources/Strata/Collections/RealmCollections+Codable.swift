// Codable for Realm's collection types, as Realm Swift: a `List` or `MutableSet` codes as an
// array of its elements, a `Map` as an object keyed by its keys. Decoded collections are
// unmanaged; managed ones encode what the Realm holds.

extension List: Decodable where Element: Decodable {
    /// Decodes an unmanaged list from an array.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: `DecodingError` when the value is not an array of `Element`.
    public convenience init(from decoder: any Decoder) throws {
        self.init()
        var container = try decoder.unkeyedContainer()
        while !container.isAtEnd { append(try container.decode(Element.self)) }
    }
}

extension List: Encodable where Element: Encodable {
    /// Encodes the list as an array.
    ///
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: Whatever encoding an element throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for element in self { try container.encode(element) }
    }
}

extension MutableSet: Decodable where Element: Decodable {
    /// Decodes an unmanaged set from an array (duplicates are kept once).
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: `DecodingError` when the value is not an array of `Element`.
    public convenience init(from decoder: any Decoder) throws {
        self.init()
        var container = try decoder.unkeyedContainer()
        while !container.isAtEnd { insert(try container.decode(Element.self)) }
    }
}

extension MutableSet: Encodable where Element: Encodable {
    /// Encodes the set as an array.
    ///
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: Whatever encoding an element throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for element in self { try container.encode(element) }
    }
}

/// A coding key made from any string: the keys of a ``Map``.
private struct MapCodingKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

extension Map: Decodable where Value: Decodable {
    /// Decodes an unmanaged map from an object.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: `DecodingError` when the value is not an object whose values are `Value`.
    public convenience init(from decoder: any Decoder) throws {
        self.init()
        let container = try decoder.container(keyedBy: MapCodingKey.self)
        for key in container.allKeys {
            updateValue(try container.decode(Value.self, forKey: key), forKey: Key(_rlmKey: key.stringValue))
        }
    }
}

extension Map: Encodable where Value: Encodable {
    /// Encodes the map as an object.
    ///
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: Whatever encoding a value throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: MapCodingKey.self)
        for (key, value) in asKeyValueSequence() {
            try container.encode(value, forKey: MapCodingKey(stringValue: key._rlmKey))
        }
    }
}
