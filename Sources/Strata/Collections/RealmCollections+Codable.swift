// Codable for Realm's collection types, as Realm Swift: a `List` or `MutableSet` codes as an
// array of its elements, a `Map` as an object keyed by its keys. Elements go through the
// encoder's containers, so its date and data strategies apply to them. Decoded collections are
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

extension Map: Decodable where Value: Decodable {
    /// Decodes an unmanaged map from an object.
    ///
    /// The object decodes as a `[String: Value]` dictionary through a single-value container,
    /// as in Realm Swift, so a decoder's key strategy (`convertFromSnakeCase`) leaves the map's
    /// keys alone.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: `DecodingError` when the value is not an object whose values are `Value`.
    public convenience init(from decoder: any Decoder) throws {
        self.init()
        for (key, value) in try decoder.singleValueContainer().decode([String: Value].self) {
            updateValue(value, forKey: Key(_rlmKey: key))
        }
    }
}

extension Map: Encodable where Value: Encodable {
    /// Encodes the map as an object.
    ///
    /// The map encodes as a `[String: Value]` dictionary through a single-value container, as
    /// in Realm Swift, so an encoder's key strategy (`convertToSnakeCase`) leaves the map's keys
    /// alone while its value strategies (dates, data) apply.
    ///
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: Whatever encoding a value throws.
    public func encode(to encoder: any Encoder) throws {
        var dictionary = [String: Value](minimumCapacity: count)
        for (key, value) in asKeyValueSequence() { dictionary[key._rlmKey] = value }
        var container = encoder.singleValueContainer()
        try container.encode(dictionary)
    }
}
