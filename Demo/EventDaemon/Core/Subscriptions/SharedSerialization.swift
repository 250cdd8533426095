import Strata

/// The text of events and of update lines, made once per commit and shared by every
/// subscription that sends it: with a thousand subscribers of one query, a commit's events are
/// serialized once and its update line built once, not a thousand times on the loop thread
/// (where every client's acks wait behind it).
///
/// Entries live until the end of the current turn of the loop: every subscription of the loop's
/// Realm receives a commit's change in the same turn, reading one version of the store. Events
/// are never changed once stored, so an event's text is its text at any version; an update line
/// is keyed by the query and the change's indices, which give the same objects in the same
/// version. Lives on the daemon's loop thread.
final class SharedSerialization {
    /// What makes two update lines equal in one turn: the subscription's query and the change.
    struct LineKey: Hashable {
        /// The query, sort and key paths, as the client sent them.
        let query: QuerySignature
        let deletions: [Int]
        let insertions: [Int]
        let modifications: [Int]
    }

    /// A subscription's query as its client sent it (two subscriptions with equal signatures
    /// have equal results and change sets at every version).
    struct QuerySignature: Hashable {
        let query: UTF8Key
        let sort: UTF8Key?
        let ascending: Bool
        let keyPaths: [UTF8Key]?

        init(query: String, sort: String?, ascending: Bool, keyPaths: [String]?) {
            self.query = UTF8Key(query)
            self.sort = sort.map(UTF8Key.init)
            self.ascending = ascending
            self.keyPaths = keyPaths?.map(UTF8Key.init)
        }
    }

    private let loop: LibUVEventLoop
    private var events: [UTF8Key: String] = [:]
    private var lines: [LineKey: String] = [:]
    private var clearIsScheduled = false
    /// Serializations done and reused (for tests and `stats`).
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

    /// The update line for `key`, built by `build` the first time in this turn of the loop.
    func line(for key: LineKey, build: () -> String) -> String {
        if let line = lines[key] {
            reused += 1
            return line
        }
        let line = build()
        remember { $0.lines[key] = line }
        return line
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
        lines.removeAll()
    }
}
