import StrataSupport

/// Counts a store's background checkpoints that were started and have not finished, so that
/// closing code can wait for them: a background checkpoint holds its store while it runs, so
/// a store whose last Realm was just released stays open until its checkpoint ends.
///
/// Held by the store and by each background checkpoint's closure (never the other way round:
/// the closure reaches the store weakly), so it can say when the work is over after the store
/// reference the work took is released.
final class BackgroundCheckpoints: Sendable {
    private let running = LockedValueBox(0)

    /// Counts one more checkpoint as started.
    func begin() {
        running.withLockedValue { $0 += 1 }
    }

    /// Counts one as finished (call after the work released its store).
    func end() {
        running.withLockedValue { $0 -= 1 }
        running.broadcast()
    }

    /// Whether a background checkpoint is under way.
    var isBusy: Bool { running.withLockedValue { $0 > 0 } }

    /// Blocks until none is under way.
    func waitUntilIdle() {
        running.wait(until: { $0 == 0 }, then: { _ in })
    }
}
