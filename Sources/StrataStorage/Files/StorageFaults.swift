import StrataSupport
import Synchronization

/// Fault injection for tests: makes the next sync of a matching path fail, as a real `EIO`
/// from `fdatasync` would; and (see `StorageFaults+Rules.swift`) fails any other file operation
/// chosen by path fragment and position, or reports every operation to a ``StorageObserver``.
///
/// Production code never arms it; the check on the sync path is one uncontended lock, on the
/// other operations one atomic load.
package final class StorageFaults: Sendable {
    package static let shared = StorageFaults()

    private let armed = LockedValueBox<[String: Int]>([:])
    /// The armed fault rules and the installed observer.
    let seam = LockedValueBox(Seam())
    /// Whether `seam` holds a rule or an observer: the fast path of every file operation.
    let seamEngaged = Atomic<Bool>(false)

    /// Makes the next `count` syncs of files whose path contains `pathFragment` fail.
    package func failNextSyncs(matching pathFragment: String, count: Int = 1) {
        armed.withLockedValue { $0[pathFragment, default: 0] += count }
    }

    /// Removes the faults armed for `pathFragment`, leaving other tests' faults alone.
    package func reset(matching pathFragment: String) {
        armed.withLockedValue { $0[pathFragment] = nil }
        interceptors.withLockedValue { $0[pathFragment] = nil }
    }

    private let interceptors = LockedValueBox<[String: @Sendable (String) -> Bool]>([:])

    /// Calls `decide` with the path at the start of every sync of a file whose path contains
    /// `pathFragment` (outside any lock of this object, in the order the syncs start); the sync
    /// fails as an injected `EIO` when it returns true. Lets a test fail the Nth sync and observe
    /// what each sync covers. ``reset(matching:)`` removes it.
    package func interceptSyncs(matching pathFragment: String, _ decide: @escaping @Sendable (String) -> Bool) {
        interceptors.withLockedValue { $0[pathFragment] = decide }
    }

    func consumeSyncFailure(path: String) -> Bool {
        let intercept = interceptors.withLockedValue { interceptors in
            interceptors.isEmpty ? nil : interceptors.first(where: { path.contains($0.key) })?.value
        }
        if let intercept, intercept(path) { return true }
        return armed.withLockedValue { armed in
            guard !armed.isEmpty, let fragment = armed.keys.first(where: { path.contains($0) }) else { return false }
            armed[fragment]! -= 1
            if armed[fragment]! <= 0 { armed[fragment] = nil }
            return true
        }
    }
}
