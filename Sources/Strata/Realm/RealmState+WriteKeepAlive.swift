import Foundation

extension Realm.WriteState {
    /// Whether a write transaction is open (live or failed).
    var isWriting: Bool {
        if case .none = self { return false }
        return true
    }
}

extension RealmState {
    /// Holds this state in the owning thread's dictionary while a write transaction is open,
    /// and lets it go when the write ends.
    ///
    /// Realm Swift code often opens a Realm per call on one thread — `try! Realm().beginWrite()`,
    /// `try! Realm().create(…)`, `try! Realm().commitWrite()` — and expects each call to reach
    /// the same open write (Realm's per-thread cache keeps the instance). States are cached
    /// weakly, so without this the write would be cancelled as soon as the first temporary
    /// `Realm` was released, and the next call would find no write. A thread that ends with a
    /// write still open releases its dictionary, and with it the state, which cancels the write.
    func keepAliveOnThreadWhileWriting(_ key: String, wasWriting: Bool) {
        let writing = writeState.isWriting
        guard writing != wasWriting else { return }
        Thread.current.threadDictionary[key] = writing ? self : nil
    }
}
