import StrataEngine

/// A type that can be the key of a ``Map``: only `String`, as in Realm.
public protocol _MapKey: Hashable, Comparable {
    /// The key as a string.
    var _rlmKey: String { get }
    /// The key from its string.
    init(_rlmKey: String)
}

extension String: _MapKey {
    public var _rlmKey: String { self }
    public init(_rlmKey: String) { self = _rlmKey }
}

/// One entry of a ``Map``, as Realm Swift's `SingleMapEntry`.
public struct SingleMapEntry<Key: _MapKey, Value: RealmCollectionValue>: Hashable {
    /// The entry's key.
    public let key: Key
    /// The entry's value.
    public let value: Value
}

/// A string-keyed dictionary, as Realm Swift's `Map`: the type of a
/// `@Persisted var scores: Map<String, Int>` property. Object values must be optional
/// (`Map<String, Dog?>`); deleting a linked object leaves its key with a nil value.
///
/// Keys are told apart and ordered by their UTF-8 bytes, managed or not, as in Realm (`"café"`
/// precomposed and decomposed are two keys), and iterate in ascending order. A key that starts
/// with `$` or contains `.` is refused: the write is cancelled and `write {}` throws
/// `Realm.Error.invalidInput`.
public final class Map<Key: _MapKey, Value: RealmCollectionValue>: Sequence, CustomStringConvertible {
    /// An unmanaged map's entries, keyed by the keys' bytes as a managed map is.
    private var unmanaged: [ByteKey: Value]
    /// Where the managed collection lives; nil while unmanaged. Set once more when the unmanaged
    /// object holding this collection is added to a Realm (see ``ManagedInPlace``).
    private(set) var location: CollectionLocation?
    /// Set on the placeholder a traced object's property returns, so that a key path can go on
    /// into a value (`\.dogs["rex"]??.name`).
    private var tracer: KeyPathTracer?

    /// Creates an empty, unmanaged map.
    public init() {
        unmanaged = [:]
        location = nil
    }

    init(location: CollectionLocation) {
        unmanaged = [:]
        self.location = location
    }

    private var stored: ValueMap {
        guard let location, case .dictionary(let map) = location.value else { return ValueMap() }
        return map
    }

    /// The Realm managing the map, or nil while unmanaged.
    public var realm: Realm? { location?.realm }

    /// Whether the owning object was deleted or its Realm invalidated.
    public var isInvalidated: Bool { location.map { !$0.exists } ?? false }

    /// The number of entries.
    public var count: Int { location == nil ? unmanaged.count : stored.count }

    /// Whether the map is empty.
    public var isEmpty: Bool { count == 0 }

    /// The keys, ascending.
    public var keys: [Key] {
        guard location != nil else {
            return unmanaged.keys.map(\.key).sorted { $0._rlmKey.utf8.lexicographicallyPrecedes($1._rlmKey.utf8) }
        }
        return stored.keys.map(Key.init(_rlmKey:))
    }

    /// The values, in key order.
    public var values: [Value] { keys.map { self[$0]! } }

    /// The value for `key`; assigning nil removes the entry.
    ///
    /// - Complexity: O(log n) to read.
    public subscript(key: Key) -> Value? {
        get {
            guard let location else {
                if let tracer, let traced = Value._rlmTracePlaceholder(tracer) { return traced }
                return unmanaged[ByteKey(key)]
            }
            return stored[key._rlmKey].map { Value._rlmFromStored($0, location.elementContext(.key(key._rlmKey))) }
        }
        set {
            if let newValue { updateValue(newValue, forKey: key) } else { removeObject(for: key) }
        }
    }

    /// Sets the value for `key`.
    public func updateValue(_ value: Value, forKey key: Key) {
        guard let location else {
            unmanaged[ByteKey(key)] = value
            return
        }
        if let failure = Self.invalidKey(key._rlmKey) {
            _ = location.realm.requireWrite(modifying: "modify")
            location.realm.recordWriteFailure(failure)
            return
        }
        let context = _WriteContext(realm: location.realm, update: .error)
        location.mutate("modify", granular: { transaction, path in
            let stored = value._rlmToStored(context)
            guard location.realm.writeIsLive else { return }
            try transaction.dictionarySet(stored, forKey: key._rlmKey, in: path)
        }, whole: { current in
            guard case .dictionary(var map) = current else { return }
            map[key._rlmKey] = value._rlmToStored(context)
            current = .dictionary(map)
        })
    }

    /// Removes the entry for `key`, if any.
    public func removeObject(for key: Key) {
        guard let location else {
            unmanaged[ByteKey(key)] = nil
            return
        }
        location.mutate("modify", granular: { transaction, path in
            try transaction.dictionaryErase(key: key._rlmKey, in: path)
        }, whole: { current in
            guard case .dictionary(var map) = current else { return }
            map[key._rlmKey] = nil
            current = .dictionary(map)
        })
    }

    /// Removes every entry.
    public func removeAll() {
        guard let location else {
            unmanaged.removeAll()
            return
        }
        location.mutate("modify", granular: { transaction, path in
            try transaction.dictionaryClear(in: path)
        }, whole: { current in current = .dictionary(ValueMap()) })
    }

    /// A key compared and hashed by its UTF-8 bytes, as a managed map and Realm compare keys:
    /// `"café"` with U+00E9 and with `e` + U+0301 are two keys (Swift's `String` equality would
    /// make them one, so an unmanaged map would lose an entry that a managed one keeps).
    struct ByteKey: Hashable {
        let key: Key

        init(_ key: Key) { self.key = key }

        static func == (left: ByteKey, right: ByteKey) -> Bool {
            left.key._rlmKey.utf8.elementsEqual(right.key._rlmKey.utf8)
        }

        func hash(into hasher: inout Hasher) {
            for byte in key._rlmKey.utf8 { hasher.combine(byte) }
        }
    }

    /// Adds the entries of `other`; for a key already present, `combine` picks the value.
    public func merge<S: Sequence>(_ other: S, uniquingKeysWith combine: (Value, Value) throws -> Value) rethrows
    where S.Element == (key: Key, value: Value) {
        for (key, value) in other {
            updateValue(try self[key].map { try combine($0, value) } ?? value, forKey: key)
        }
    }

    /// Adds the entries of a dictionary; for a key already present, `combine` picks the value.
    public func merge(_ other: [Key: Value], uniquingKeysWith combine: (Value, Value) throws -> Value) rethrows {
        try merge(other.map { (key: $0.key, value: $0.value) }, uniquingKeysWith: combine)
    }

    /// The entries as `(key, value)` tuples, in key order.
    public func asKeyValueSequence() -> [(key: Key, value: Value)] { keys.map { ($0, self[$0]!) } }

    /// Iterates the entries in key order.
    public func makeIterator() -> IndexingIterator<[SingleMapEntry<Key, Value>]> {
        keys.map { SingleMapEntry(key: $0, value: self[$0]!) }.makeIterator()
    }

    /// The entries as Realm prints a map, `[key]: value` (at most 100, nested five levels deep).
    public var description: String { description(depth: RealmDescription.maximumDepth) }

    func description(depth: Int) -> String {
        // The first entries only: a map of a million entries prints 100 without reading the rest.
        let entries = keys.prefix(RealmDescription.maximumElements).map { ("[\($0)]: ", self[$0] as Any?) }
        return RealmDescription.collection("Map", elementType: "string, " + RealmDescription.typeName(Value.self),
                                           identity: self, elements: entries, count: count, depth: depth)
    }

    /// The error for a key Realm refuses (§2.14), or nil.
    static func invalidKey(_ key: String) -> Realm.Error? {
        if key.hasPrefix("$") {
            return Realm.Error(Realm.Error.invalidInput, "Invalid key '\(key)': a key must not start with '$'")
        }
        if key.contains(".") {
            return Realm.Error(Realm.Error.invalidInput, "Invalid key '\(key)': a key must not contain '.'")
        }
        return nil
    }
}

extension Map: _Persistable {
    public static var _rlmIsKeptCollection: Bool { true }

    public static var _rlmColumn: _ColumnDescription { Value._rlmColumn.inCollection(.dictionary) }

    public static func _rlmDefaultValue() -> Self { Self() }

    /// While a key path is traced, an empty map whose subscript returns a traced value.
    public static func _rlmTracePlaceholder(_ tracer: KeyPathTracer) -> Self? {
        let placeholder = Self()
        placeholder.tracer = tracer
        return placeholder
    }

    public static func _rlmFromStored(_ value: StrataEngine.Value, _ context: _ReadContext) -> Self {
        Self(location: CollectionLocation(context))
    }

    public func _rlmToStored(_ context: _WriteContext) -> StrataEngine.Value {
        var map = ValueMap()
        for (key, value) in asKeyValueSequence() {
            if let failure = Self.invalidKey(key._rlmKey) {
                context.realm.recordWriteFailure(failure)
                return .dictionary(ValueMap())
            }
            map[key._rlmKey] = value._rlmToStored(context)
        }
        return .dictionary(map)
    }

    public static func _rlmFromAny(_ value: Any) -> Self? {
        if LooseSequence.isAbsent(value) { return Self() }  // nil or NSNull: empty, as in Realm
        if let map = value as? Self {
            // Entry by entry, not through a Swift dictionary: keys that are one text in two
            // Unicode forms are two keys to a map (it compares bytes, as Realm does) but one to
            // `Dictionary`, which would trap on them.
            let copy = Self()
            for (key, element) in map.asKeyValueSequence() { copy[key] = element }
            return copy
        }
        // A dictionary, or a map of another value type (`Map<String, Dog>` for a
        // `Map<String, Dog?>` property), entry by entry, as Realm enumerates any map.
        let entries: [(key: String, value: Any)]
        if let other = value as? any LooseKeyedEntries {
            entries = other.looseEntries
        } else if let dictionary = value as? [String: Any] {
            entries = dictionary.map { ($0.key, $0.value) }
        } else {
            return nil
        }
        let map = Self()
        for (key, element) in entries {
            guard let typed = Value._rlmFromAny(element) ?? projectionForAbsentValue(element, as: Value.self) else {
                return nil
            }
            map[Key(_rlmKey: key)] = typed
        }
        return map
    }
}

/// A map's entries, loosely typed, for a map property given a map of another value type.
protocol LooseKeyedEntries {
    var looseEntries: [(key: String, value: Any)] { get }
}

extension Map: LooseKeyedEntries {
    var looseEntries: [(key: String, value: Any)] { asKeyValueSequence().map { ($0.key._rlmKey, $0.value as Any) } }
}

extension Map: Equatable, Hashable {
    /// Two accessors of one managed property are equal; an unmanaged map is equal only to itself.
    public static func == (lhs: Map, rhs: Map) -> Bool { CollectionIdentity.equal(lhs, lhs.location, rhs, rhs.location) }

    public func hash(into hasher: inout Hasher) { CollectionIdentity.hash(self, location, into: &hasher) }
}

extension Map: ManagedInPlace {
    func becomeManaged(_ context: _ReadContext) {
        guard location == nil else { return }
        location = CollectionLocation(context)
        unmanaged = [:]
    }
}
