// Realm Swift's string-keyed access to a map's entries, for code written against
// `value(forKey:)` and `setValue(_:forKey:)`.

extension Map {
    /// The value for the key named `key`, or nil when the map has no such key, as Realm Swift's
    /// `value(forKey:)`.
    ///
    /// Realm Swift returns an `AnyObject`; Strata returns the value itself, as `Any`.
    ///
    /// - Complexity: O(log n).
    public func value(forKey key: String) -> Any? {
        self[Key(_rlmKey: key)]
    }

    /// Sets the value for the key named `key`, converting `value` as `Object(value:)` does; nil
    /// removes the entry, as Realm Swift's `setValue(_:forKey:)`.
    ///
    /// A value that does not convert to `Value` is a programmer error and traps, as Realm's
    /// exception does. In a managed map, call it inside a write transaction.
    public func setValue(_ value: Any?, forKey key: String) {
        let mapKey = Key(_rlmKey: key)
        guard let value else {
            removeObject(for: mapKey)
            return
        }
        guard let converted = Value._rlmFromAny(value) else {
            preconditionFailure("Invalid value '\(value)' of type '\(type(of: value))' for a Map of '\(Value.self)'")
        }
        updateValue(converted, forKey: mapKey)
    }
}
