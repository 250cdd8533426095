import Foundation

/// An observation's side of W7/W8: the callback calls `deliver` on entry; the writer sets the
/// value it waits for and blocks in `wait()` until a callback delivered it.
final class AwaitedValue: @unchecked Sendable {
    // Safety: `state` is Locked; the semaphore is thread-safe.
    private let state = Locked((target: Int?.none, arrivedAt: UInt64(0), values: [Int](), error: String?.none))
    private let arrived = DispatchSemaphore(value: 0)
    let name: String

    init(_ name: String) { self.name = name }

    /// Called first thing in the observation callback.
    func deliver(_ value: Int, at time: UInt64) {
        let hit = state.withLock { state -> Bool in
            state.values.append(value)
            guard value == state.target else { return false }
            state.target = nil
            state.arrivedAt = time
            return true
        }
        if hit { arrived.signal() }
    }

    func fail(_ error: any Error) {
        state.withLock { $0.error = "\(error)" }
        arrived.signal()
    }

    /// The value the next `wait()` waits for (set before the commit that produces it).
    func expect(_ value: Int) { state.withLock { $0.target = value } }

    /// Waits for the expected value; returns when its callback was entered.
    func wait(timeout seconds: Double = 60) throws -> UInt64 {
        let timedOut = arrived.wait(timeout: .now() + seconds) == .timedOut
        let result = state.current
        if let error = result.error { throw SanityFailure(description: "\(name) observation failed: \(error)") }
        if timedOut {
            throw SanityFailure(description: "\(name) observation never delivered \(result.target ?? -1); "
                                + "last delivered: \(result.values.last.map(String.init) ?? "nothing")")
        }
        return result.arrivedAt
    }

    /// The values delivered so far, in order (initial value included).
    var values: [Int] { state.current.values }
}
