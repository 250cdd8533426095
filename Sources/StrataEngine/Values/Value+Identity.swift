extension Value {
    /// Whether this value would be stored as the same bytes as `other`: ``==`` except that
    /// floating-point numbers compare by their bits (so 0.0 and −0.0 differ, and a NaN equals
    /// itself), in nested collections too. A checkpoint that writes only what changed in a leaf
    /// (see `LeafDelta.swift`) decides with it which values changed: `==` would miss a sign of
    /// zero changed.
    package func isStoredIdentically(to other: Value) -> Bool {
        switch (self, other) {
        case let (.int(a), .int(b)): a == b
        case let (.float(a), .float(b)): a.bitPattern == b.bitPattern
        case let (.double(a), .double(b)): a.bitPattern == b.bitPattern
        case let (.list(a), .list(b)), let (.set(a), .set(b)): Self.areStoredIdentically(a, b)
        case let (.dictionary(a), .dictionary(b)):
            a.keys.count == b.keys.count && zip(a.keys, b.keys).allSatisfy { Value.compareUTF8($0, $1) == 0 }
                && Self.areStoredIdentically(a.values, b.values)
        default: self == other
        }
    }

    /// Whether `a` and `b` hold values stored identically, in order.
    package static func areStoredIdentically(_ a: [Value], _ b: [Value]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { $0.isStoredIdentically(to: $1) }
    }
}
