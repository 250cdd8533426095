import StrataEngine
import StrataSupport
import Synchronization

/// Hands a managed object or live collection to another thread, as Realm Swift's
/// `ThreadSafeReference`: create it where the value lives, pass it along (it is `Sendable`), and
/// resolve it once with a Realm of the same file on the other side.
///
/// ```swift
/// let reference = ThreadSafeReference(to: dog)
/// loop.execute {
///     let realm = try! Realm(configuration: configuration)
///     guard let dog = realm.resolve(reference) else { return }   // nil: deleted meanwhile
///     print(dog.name)
/// }
/// ```
///
/// The reference keeps the source version pinned until it is resolved or released: a Realm
/// that was invalidated resolves at that version; an older one refreshes first. A reference
/// made inside a write transaction resolves at the newest version. A `Results` reference
/// carries its query, which runs again in the resolving Realm.
public final class ThreadSafeReference<Confined: ThreadConfined>: @unchecked Sendable {
    // Safety: `handover` captures only immutable addresses (see `_Handover`) and is called by
    // the one thread that wins `resolved`; every other stored property is immutable and
    // Sendable.
    private let handover: _Handover
    /// The source version, kept pinned while the reference is unresolved (nil inside a write).
    private let source: LockedValueBox<PinnedSnapshot?>
    private let resolved = Atomic<Bool>(false)
    /// The store the value lives in.
    let store: Store

    /// Creates a reference to `threadConfined`, on the thread that owns it.
    ///
    /// Traps, as Realm does, for an unmanaged value ("Cannot construct reference to unmanaged
    /// object") and an invalidated one ("Cannot construct reference to invalidated object").
    public init(to threadConfined: Confined) {
        guard let realm = threadConfined.realm else {
            preconditionFailure("Cannot construct reference to unmanaged object, which can be passed across threads directly")
        }
        realm.verifyThread()
        precondition(!threadConfined.isInvalidated, "Cannot construct reference to invalidated object")
        handover = threadConfined._handover()
        store = realm.store
        let holder = PinHolder(.threadSafeReference, "a ThreadSafeReference<\(Confined.self)> not resolved yet")
        source = LockedValueBox(realm.isInWriteTransaction
                                    ? nil : realm.store.pin(again: realm.pinnedForReading, holder: holder))
    }

    /// Whether the reference was resolved already (it can be resolved only once).
    public var isInvalidated: Bool { resolved.load(ordering: .acquiring) }

    /// Marks the reference resolved and returns what it needs; traps on a second resolve.
    fileprivate func take() -> (handover: _Handover, source: PinnedSnapshot?, madeInWrite: Bool) {
        let (exchanged, _) = resolved.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing)
        precondition(exchanged, "Can only resolve a thread safe reference once.")
        let pin = source.withLockedValue { pin in
            defer { pin = nil }
            return pin
        }
        return (handover, pin, pin == nil)
    }
}

extension Realm {
    /// The value a ``ThreadSafeReference`` refers to, in this Realm: nil when it (or the
    /// object owning a collection) was deleted by the version this Realm reads, and nil in a
    /// Realm of another file (which does not have it), as in Realm; either way the reference is
    /// used up.
    ///
    /// A Realm older than the reference's version refreshes first; one that is not reading yet
    /// (invalidated, or opened and not read since) begins reading at the reference's version,
    /// as in Realm. Traps inside a write transaction ("Cannot resolve thread safe
    /// reference during a write transaction.") and on a second resolve of the same reference.
    public func resolve<Confined: ThreadConfined>(_ reference: ThreadSafeReference<Confined>) -> Confined? {
        verifyThread()
        precondition(!isFrozen, "Cannot resolve a thread safe reference in a frozen Realm; resolve it in a live one")
        precondition(!isInWriteTransaction, "Cannot resolve thread safe reference during a write transaction.")
        let (handover, source, madeInWrite) = reference.take()
        guard reference.store === store else { return nil }
        if madeInWrite {
            refresh()
        } else if let source {
            if isInvalidated || state.unreadSinceOpen && source.version < version {
                // Not reading yet (invalidated, or nothing read since it was opened): the Realm
                // begins its read at the reference's version, as Realm's does.
                state.pinned = store.pin(again: source)
            } else if version < source.version {
                refresh()
            }
        }
        return handover.value(in: self, as: Confined.self)
    }
}
