/// Values confined to the thread (or queue, or loop) of their Realm, as Realm Swift's
/// `ThreadConfined`: managed objects and every Realm collection.
///
/// Live values are read and written where their Realm lives. To use one elsewhere, freeze it
/// (an immutable snapshot any thread may read at once) or hand it over with a
/// ``ThreadSafeReference``.
///
/// ```swift
/// let frozenDogs = realm.objects(Dog.self).freeze()   // readable from any thread
/// let live = frozenDogs.thaw()                         // back to this thread's live Realm
/// ```
///
/// Its metatype is `Sendable` (`SendableMetatype`), so a value can be handed over to a queue or
/// actor generically (`observe(on:)`).
public protocol ThreadConfined: SendableMetatype {
    /// The Realm managing the value, or nil while unmanaged.
    var realm: Realm? { get }
    /// Whether the value can no longer be read (deleted, or its Realm invalidated).
    var isInvalidated: Bool { get }
    /// Whether the value is frozen: it never changes and may be read from any thread.
    var isFrozen: Bool { get }
    /// A frozen snapshot of the value at its Realm's current version.
    ///
    /// Traps for unmanaged values ("Unmanaged objects cannot be frozen.") and for objects
    /// created in the write transaction still open ("Cannot freeze an object in the same write
    /// transaction as it was created in."). Freezing a frozen value returns it.
    func freeze() -> Self
    /// The live counterpart of a frozen value, at the current version of this thread's Realm;
    /// nil when it was deleted meanwhile. A live value returns itself; an unmanaged one traps
    /// ("Unmanaged objects cannot be thawed.").
    func thaw() -> Self?
    /// Implementation detail: re-creates the value in another Realm of the same file.
    func _handover() -> _Handover
}

/// Implementation detail: how a thread-confined value is found again in another Realm of the
/// same file (a frozen one, another thread's, a resolving one).
///
/// It holds only the value's address (table and object keys, property column, query), never
/// the source Realm, so a ``ThreadSafeReference`` may carry it to another thread.
public struct _Handover {
    let attach: (Realm) -> Any?

    init(_ attach: @escaping (Realm) -> Any?) {
        self.attach = attach
    }

    /// The value in `realm`, or nil when it does not exist at `realm`'s version.
    func value<Value>(in realm: Realm, as type: Value.Type) -> Value? {
        attach(realm) as? Value
    }
}

extension ThreadConfined {
    /// Whether the value's Realm is frozen.
    public var isFrozen: Bool { realm?.isFrozen ?? false }

    public func freeze() -> Self {
        guard let realm else { preconditionFailure("Unmanaged objects cannot be frozen.") }
        if realm.isFrozen { return self }
        realm.verifyThread()
        guard let frozen = _handover().value(in: realm.freeze(), as: Self.self) else {
            preconditionFailure("Cannot freeze an object in the same write transaction as it was created in.")
        }
        return frozen
    }

    public func thaw() -> Self? {
        guard let realm else { preconditionFailure("Unmanaged objects cannot be thawed.") }
        guard realm.isFrozen else { return self }
        return _handover().value(in: realm.thaw(), as: Self.self)
    }
}
