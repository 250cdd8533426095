import Strata

/// The text of events, made once per commit and shared by every query that sends them (each
/// ``SharedQuery`` builds its update line once for all of its members; this shares the events'
/// JSON between different queries that match the same events).
///
/// Entries live until the end of the current turn of the loop: every query of the loop's Realm
/// receives a commit's change in the same turn, reading one version of the store, and events are
/// never changed once stored, so an event's text is its text at any version. Lives on the
/// daemon's loop thread.
final class SharedSerialization {
    private let loop: LibUVEventLoop
    private var events: [UTF8Key: String] = [:]
    private var clearIsScheduled = false
    /// Serializations done and reused (for tests).
    private(set) var built = 0
    private(set) var reused = 0

    init(loop: LibUVEventLoop) {
        self.loop = loop
    }

    /// The event's JSON text (``StoredEvent/customEventRepresentation()``).
    func text(of event: StoredEvent) -> String {
        let key = UTF8Key(event.id)
        if let text = events[key] {
            reused += 1
            return text
        }
        let text = event.customEventRepresentation()
        remember { $0.events[key] = text }
        return text
    }

    private func remember(_ store: (SharedSerialization) -> Void) {
        loop.preconditionInEventLoop()
        built += 1
        store(self)
        guard !clearIsScheduled else { return }
        clearIsScheduled = true
        // Runs after the deliveries of this turn.
        WeakLoopBound(self, loop: loop).execute { $0.clear() }
    }

    private func clear() {
        clearIsScheduled = false
        events.removeAll()
    }
}
