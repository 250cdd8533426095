import Foundation

/// A value shared between threads; every access holds the lock.
final class Locked<Value>: @unchecked Sendable {
    // Safety: `value` is only touched inside `withLock`.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    var current: Value { withLock { $0 } }
}
