import StrataEngine

/// Declares a stored property of a Realm object, as in Realm Swift.
///
/// Only properties marked `@Persisted` are stored; other properties of the class are ignored.
///
/// ```swift
/// class Dog: Object {
///     @Persisted(primaryKey: true) var id: ObjectId
///     @Persisted(indexed: true) var name: String
///     @Persisted var age = 3
///     @Persisted var owner: Person?
///     @Persisted var tags: List<String>
///     @Persisted(originProperty: "dogs") var walkers: LinkingObjects<Person>
/// }
/// ```
///
/// Without a default, a property starts as `nil`, zero, `false`, an empty string or `Data`,
/// `Date()`, `Decimal128` zero, a fresh random `UUID` / `ObjectId`, an enum's first case, or an
/// empty collection; a default expression (`= value`) is evaluated per instance. A default that
/// is made anew at each call (`Date()`, a `UUID`, an `ObjectId`) is made once per unmanaged
/// object, on first use, and kept: a read, `realm.add` and `Encodable` (synthesized, or a
/// hand-written `encode(to:)` that codes the storage) all see the same value, as in Realm Swift. On a managed
/// object the property reads and writes the Realm directly; setting it outside a write
/// transaction traps with Realm's message.
@propertyWrapper
public struct Persisted<Value: _Persistable> {
    @usableFromInline
    enum State {
        case unmanaged(Value)
        /// No value yet: the type's default, deterministic (zero, `""`, an empty collection), is
        /// made on first use.
        case unmanagedNoDefault
        /// No value yet, and the type's default is made anew at each call (an `ObjectId`, a
        /// `UUID`, `Date()`): the box makes it once, and every copy of the storage shares it, so
        /// that encoding a copy (synthesized `Encodable`) and later reads see one value.
        case unmanagedGenerated(GeneratedDefault<Value>)

        /// The state of a property declared without a default (a managed accessor's, made while
        /// ``AccessorConstruction/isActive``, needs no box: it reads its row).
        @inlinable
        static var noDefault: State {
            Value._rlmDefaultIsGenerated && !AccessorConstruction.isActive
                ? .unmanagedGenerated(GeneratedDefault()) : .unmanagedNoDefault
        }
    }

    /// On a managed object, the property's index in its class (the handle reads that column);
    /// -1 while unmanaged. Declared first, so binding an accessor writes one integer at a fixed
    /// place, without the generic metadata of `State`.
    @usableFromInline var managedProperty = -1
    /// On a managed object, the object holding this storage (unretained: the storage lives
    /// inside it), so that encoding the storage (synthesized `Encodable`) can read the Realm.
    @usableFromInline var managedOwner: Unmanaged<ObjectBase>?
    /// The unmanaged value (a managed object keeps the value it had when it was made).
    @usableFromInline var state: State
    @usableFromInline let isIndexed: Bool
    @usableFromInline let isPrimaryKey: Bool

    /// Not available: `@Persisted` works only on properties of `Object` and `EmbeddedObject`
    /// subclasses, through its enclosing-instance subscript.
    @available(*, unavailable, message: "@Persisted can only be used as a property on a Realm object")
    public var wrappedValue: Value {
        get { fatalError("@Persisted can only be used as a property on a Realm object") }
        set { fatalError("@Persisted can only be used as a property on a Realm object") }
    }

    // The initializers are inlinable so that the model's module specializes them: each accessor
    // made for a managed object runs them, and a generic call would look up `State`'s metadata.

    /// Declares a property with the type's default value.
    @inlinable
    public init() {
        state = .noDefault
        isIndexed = false
        isPrimaryKey = false
    }

    /// Declares a property with a default value.
    @inlinable
    public init(wrappedValue value: Value) {
        state = .unmanaged(value)
        isIndexed = false
        isPrimaryKey = false
    }

    @usableFromInline
    init(state: State, indexed: Bool, primaryKey: Bool) {
        self.state = state
        isIndexed = indexed
        isPrimaryKey = primaryKey
    }

    /// Reads and writes the property of the object that holds it.
    ///
    /// Always inlined into the model's accessors: the storage key path is then a literal the
    /// optimizer turns into a direct field access, so the managed fast path is one field read and
    /// one call, without key-path projection or generic metadata lookups. The key paths must not
    /// escape into a call that is not inlined (the slow path gets the storage's address instead):
    /// a key path passed on is instantiated (`swift_getKeyPath`, a retain and a release) on every
    /// access, fast path included, which was most of the cost of reading an `Int`.
    @inlinable @inline(__always)
    public static subscript<EnclosingSelf: ObjectBase>(
        _enclosingInstance object: EnclosingSelf,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Self>
    ) -> Value {
        get {
            // Bound storage means a managed object (`bind(to:)` sets both, and nothing unbinds).
            let property = object[keyPath: storageKeyPath].managedProperty
            if property >= 0 {
                // Known for each `Value` when the getter is specialized: nothing for a scalar. A
                // frozen object, which threads read at once, keeps nothing, and its storage is not
                // even accessed here (taking its address is a modifying access).
                if Value._rlmIsKeptCollection, object.keepsCollections {
                    let offset = withUnsafeMutablePointer(to: &object[keyPath: storageKeyPath]) {
                        UnsafeMutableRawPointer($0) - UnsafeMutableRawPointer(Unmanaged.passUnretained(object).toOpaque())
                    }
                    return keptCollection(object, offset: offset, property: property)
                }
                return object.readManaged(property: property, as: Value.self)
            }
            if object.tracer == nil, case .unmanaged(let value) = object[keyPath: storageKeyPath].state { return value }
            // No access to the storage spans a call (its offset is taken and the access ends; the
            // slow path reaches the storage from the object's address, outside any access, and the
            // setter swaps the new state in): the optimizer can then prove that no access overlaps
            // another and checks none at run time, about 7 ns of every property read.
            let offset = withUnsafeMutablePointer(to: &object[keyPath: storageKeyPath]) {
                UnsafeMutableRawPointer($0) - UnsafeMutableRawPointer(Unmanaged.passUnretained(object).toOpaque())
            }
            return unmanagedGet(object, offset: offset)
        }
        set {
            let property = object[keyPath: storageKeyPath].managedProperty
            if property >= 0 {
                object.writeManaged(newValue, property: property)
                return
            }
            precondition(object.handle == nil, "a managed object's property was not bound to its column")
            // Swapped, so that the old value is released after the access ends.
            var state = State.unmanaged(newValue)
            swap(&state, &object[keyPath: storageKeyPath].state)
        }
    }

    /// The slow paths of the subscript: unmanaged objects without a value yet, and key-path
    /// tracing. The property's storage is at `offset` in `object`. Specialized in the model's
    /// module but never inlined into the getter, which stays small enough to be inlined into its
    /// callers. (Measured: with the unmanaged value's test above left to this function too, the
    /// optimizer stopped inlining the getter into a loop reading an `Int`: 4.3 → 7.1 ns a read.)
    @inlinable @inline(never)
    static func unmanagedGet(_ object: ObjectBase, offset: Int) -> Value {
        precondition(object.handle == nil, "a managed object's property was not bound to its column")
        let storage = UnsafeMutableRawPointer(Unmanaged.passUnretained(object).toOpaque()).advanced(by: offset)
            .assumingMemoryBound(to: Self.self)
        if let tracer = object.tracer {
            tracer.record(offset: offset, in: type(of: object))
            return Value._rlmTracePlaceholder(tracer) ?? storage.pointee.unmanagedValue()
        }
        return storage.pointee.unmanagedValue()
    }

    /// A managed collection property: the collection the storage keeps when it is still this
    /// object's (the one read last, or the one `add` made managed in place), otherwise a new one,
    /// kept for the next read. Only for a live object (see ``ObjectBase/keepsCollections``).
    @inlinable @inline(never)
    static func keptCollection(_ object: ObjectBase, offset: Int, property: Int) -> Value {
        let storage = UnsafeMutableRawPointer(Unmanaged.passUnretained(object).toOpaque()).advanced(by: offset)
            .assumingMemoryBound(to: Self.self)
        if case .unmanaged(let kept) = storage.pointee.state, object.holdsManagedCollection(kept, property: property) {
            return kept
        }
        let value = object.readManaged(property: property, as: Value.self)
        storage.pointee.state = .unmanaged(value)
        return value
    }

    /// The unmanaged value, computing and keeping the default on first use.
    @usableFromInline
    mutating func unmanagedValue() -> Value {
        switch state {
        case .unmanaged(let value):
            return value
        case .unmanagedNoDefault:
            let value = Value._rlmDefaultValue()
            state = .unmanaged(value)
            return value
        case .unmanagedGenerated(let generated):
            let value = generated.value
            state = .unmanaged(value)
            return value
        }
    }
}

/// A default that is made anew at each call (see `Persisted.State.unmanagedGenerated`), made
/// once on first use and then kept. Unmanaged objects are confined to one thread, as is this box.
@usableFromInline
final class GeneratedDefault<Value: _Persistable> {
    @usableFromInline var made: Value?

    @usableFromInline init() {}

    /// The default, made on the first call.
    @usableFromInline var value: Value {
        if let made { return made }
        let value = Value._rlmDefaultValue()
        made = value
        return value
    }
}

extension Persisted where Value.PersistedType: _Indexable {
    /// Declares an indexed property: equality queries on it use an index. The stored type must
    /// be indexable, so a `CustomPersistable` stored as a `String` or an `Int` can be indexed too.
    @inlinable
    public init(indexed: Bool) {
        self.init(state: .noDefault, indexed: indexed, primaryKey: false)
    }

    /// Declares an indexed property with a default value.
    @inlinable
    public init(wrappedValue value: Value, indexed: Bool) {
        self.init(state: .unmanaged(value), indexed: indexed, primaryKey: false)
    }
}

extension Persisted where Value: _PrimaryKey {
    /// Declares the primary key: unique per type, immutable once the object is managed.
    @inlinable
    public init(primaryKey: Bool) {
        self.init(state: .noDefault, indexed: false, primaryKey: primaryKey)
    }

    /// Declares the primary key with a default value.
    @inlinable
    public init(wrappedValue value: Value, primaryKey: Bool) {
        self.init(state: .unmanaged(value), indexed: false, primaryKey: primaryKey)
    }
}
