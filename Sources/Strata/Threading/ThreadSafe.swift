import StrataEngine
import StrataSupport

/// A property wrapper that lets a thread-confined value be read on any thread, as Realm Swift's
/// `@ThreadSafe`: each read resolves the value in the reading thread's Realm of the same file
/// (nil when it was deleted), each write stores a new address.
///
/// ```swift
/// final class Job: @unchecked Sendable {
///     @ThreadSafe var dog: Dog?
/// }
/// job.dog = dog                       // on the Realm's thread
/// loop.execute { print(job.dog?.name ?? "deleted") }   // on the loop's thread
/// ```
///
/// Reads on a thread whose Realm is older than the newest version the value was set or read at
/// refresh that Realm first, as resolving a ``ThreadSafeReference`` does (so a write through the
/// value on one thread, once read back there, is seen by the next read on another).
@propertyWrapper
public final class ThreadSafe<Value: ThreadConfined>: @unchecked Sendable {
    // Safety: `stored` is behind a lock; `_Handover` holds only addresses (see its comment).
    private struct Stored {
        var handover: _Handover
        var configuration: Realm.Configuration
        var version: UInt64
    }

    private let stored: LockedValueBox<Stored?>

    /// Wraps `wrappedValue` (managed, or nil).
    public init(wrappedValue: Value?) {
        var initial: Stored?
        if let wrappedValue { initial = ThreadSafe.address(of: wrappedValue) }
        stored = LockedValueBox(initial)
    }

    /// The value resolved in the calling thread's Realm, or nil (never set, set to nil, or
    /// deleted).
    ///
    /// Setting an unmanaged value traps ("Cannot construct reference to unmanaged object").
    public var wrappedValue: Value? {
        get {
            guard let stored = stored.withLockedValue({ $0 }) else { return nil }
            let realm: Realm
            do {
                realm = try Realm(configuration: stored.configuration)
            } catch {
                return nil
            }
            if realm.version < stored.version, !realm.isInWriteTransaction { realm.refresh() }
            // As in Realm, where each read takes a new reference at the reader's version: a
            // thread that wrote through the value and read it again makes later readers on
            // older Realms refresh to see that write.
            if realm.version > stored.version {
                let seen = realm.version
                self.stored.withLockedValue { current in
                    if let version = current?.version, version < seen { current?.version = seen }
                }
            }
            return stored.handover.value(in: realm, as: Value.self)
        }
        set {
            var address: Stored?
            if let newValue { address = ThreadSafe.address(of: newValue) }
            stored.withLockedValue { $0 = address }
        }
    }

    private static func address(of value: Value) -> Stored {
        // Realm's message: a @ThreadSafe property holds managed values only.
        guard let realm = value.realm else { preconditionFailure("Only managed objects may be wrapped as thread safe.") }
        realm.verifyThread()
        return Stored(handover: value._handover(), configuration: realm.configuration,
                      version: realm.isInWriteTransaction ? realm.store.currentVersion + 1 : realm.version)
    }
}
