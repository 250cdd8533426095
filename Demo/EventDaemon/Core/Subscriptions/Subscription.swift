import Dispatch
import Foundation
import Strata

/// A live query a client subscribed to: its initial result in pages, then every change set, as
/// NDJSON lines, in commit order, until it is cancelled.
///
/// Lines: `{"initial":{"count":n,"page":i,"objects":[…],"last":bool}}` for pages 0, 1, … of the
/// initial result (each closes once it holds ``DaemonLimits/initialPageBytes``; `count` is the
/// whole result's size; a result that fits one page is one line with `"page":0,"last":true`),
/// then `{"update":{"deletions":[…],"insertions":[…],"modifications":[…],"inserted":[…],"modified":[…]}}`
/// where deletions and modifications are indices in the previous result, insertions in the new
/// one, and `inserted` / `modified` are the objects at those new indices, serialized through
/// `CustomEventRepresentable`.
///
/// Pages are built off the loop thread from a frozen snapshot of the result, one at a time: the
/// next is built once the kernel took the previous one, so a slow reader holds back the pages
/// instead of queueing them; a page left unread for ``DaemonLimits/pageTimeoutSeconds``
/// disconnects the client (the snapshot pins a version). Updates that arrive meanwhile wait, in
/// order, until the last page went (counted against ``DaemonLimits/maxQueuedOutputBytes``).
///
/// When the notifier worker's CPU time to evaluate one commit for this query (whether or not it
/// changed the result) passes ``DaemonLimits/subscriptionBudgetMillis`` (string tests and paths
/// through maps, links and subqueries give up at the deadline), the notifier stops at once and
/// the subscription is cancelled with `{"error":"subscription cancelled: …"}`, which may come
/// before the last page: nothing of the subscription follows it. The initial result is not held
/// to the budget, nor is serialization on the loop (linear in the bytes the client receives).
/// Lives on the daemon's loop thread.
final class Subscription {
    private var token: NotificationToken?
    private weak var connection: ClientConnection?
    private let limits: DaemonLimits
    /// Texts shared with the other subscriptions, and this one's key to them.
    private let shared: SharedSerialization
    private let signature: SharedSerialization.QuerySignature
    private let loop: LibUVEventLoop
    private let onCancelled: () -> Void
    /// Update lines waiting for the last page of the initial result (nil when no initial result
    /// is being paged).
    private var heldBack: [String]?
    private var heldBackBytes = 0
    private var isCancelled = false
    /// Fires when the client leaves a page unread for too long (the frozen snapshot it is read
    /// from pins a version, and the store keeps every changeset after it).
    private var pageDeadline: TimerHandle?

    /// Subscribes; the lines go to `connection`, and `onCancelled` runs if the subscription
    /// cancels itself for going over its budget.
    ///
    /// - Throws: ``IngestRejection`` `query_too_long` or `pattern_too_long` (see ``QueryCost``),
    ///   or `bad_query` naming the position when the RQL or the sort key path is invalid, or
    ///   naming the key path that names no property (or has an empty component, or goes past a
    ///   value).
    init(realm: Realm, query: String, sort: String?, ascending: Bool, keyPaths: [String]?, limits: DaemonLimits,
         shared: SharedSerialization, connection: ClientConnection,
         onCancelled: @escaping () -> Void) throws(IngestRejection) {
        try QueryCost.check(query: query, sort: sort, limits: limits)
        var results: Results<StoredEvent>
        do {
            results = try realm.objects(StoredEvent.self).filter(validating: query)
            if let sort {
                // The key path goes into RQL text: it must be one key path, not more query.
                guard Self.isPlainKeyPath(sort) else {
                    throw IngestRejection.badQuery("the sort key path '\(sort)' is not one key path: it must not be "
                                                   + "empty or hold spaces, commas or parentheses")
                }
                results = try results.filter(validating: "TRUEPREDICATE SORT(\(sort) \(ascending ? "ASC" : "DESC"))")
            }
        } catch let rejection as IngestRejection {
            throw rejection
        } catch {
            throw .badQuery("\(error)")
        }
        self.connection = connection
        self.limits = limits
        self.shared = shared
        signature = SharedSerialization.QuerySignature(query: query, sort: sort, ascending: ascending, keyPaths: keyPaths)
        self.onCancelled = onCancelled
        guard let loop = LibUVEventLoop.current else { preconditionFailure("a subscription lives on the daemon's loop") }
        self.loop = loop
        // Key paths come from the network: checked, never passed to the trapping `observe(keyPaths:)`.
        do {
            token = try results.observe(validatingKeyPaths: keyPaths) { [weak self] change in self?.handle(change) }
        } catch {
            throw .badQuery("\(error)")
        }
        // The notifier worker holds each commit's evaluation to the budget, including one that
        // changes nothing this subscription sees; past it the notifier has stopped.
        let subscription = WeakLoopBound(self, loop: loop)
        token?.limitComputeCost(to: limits.subscriptionBudget) { cost in
            subscription.execute { $0.cancelForCost(cost) }
        }
    }

    /// Stops the notifications (and the paging of the initial result).
    func cancel() {
        isCancelled = true
        heldBack = nil
        pageDeadline?.cancel()
        pageDeadline = nil
        token?.invalidate()
        token = nil
    }

    deinit { token?.invalidate() }

    private func handle(_ change: RealmCollectionChange<Results<StoredEvent>>) {
        guard !isCancelled else { return }
        switch change {
        case .initial(let results):
            heldBack = []
            buildPage(0, from: 0, of: Frozen(results))
        case .update(let results, let deletions, let insertions, let modifications):
            // Built once per commit for every subscription of the same query (and each event's
            // text once for all queries): see SharedSerialization.
            let key = SharedSerialization.LineKey(query: signature, deletions: deletions, insertions: insertions,
                                                  modifications: modifications)
            let shared = self.shared
            emit(shared.line(for: key) {
                let modifiedNow = Self.newIndices(of: modifications, deletions: deletions, insertions: insertions)
                let inserted = Self.objects(results, at: insertions, shared: shared)
                let modified = Self.objects(results, at: modifiedNow, shared: shared)
                return #"{"update":{"deletions":\#(deletions),"insertions":\#(insertions),"#
                    + #""modifications":\#(modifications),"inserted":[\#(inserted)],"modified":[\#(modified)]}}"#
            })
        case .error(let error):
            emit(#"{"error":\#(JSONValue.string("\(error)").text)}"#)
        }
    }

    /// Sends an update line, or holds it back while the initial result is being paged.
    private func emit(_ line: String) {
        guard let connection else { return }
        guard heldBack != nil else {
            connection.send(line)
            return
        }
        heldBack?.append(line)
        heldBackBytes += line.utf8.count + 1
        if heldBackBytes + connection.queuedBytes > limits.maxQueuedOutputBytes { dropSlowReader() }
    }

    private func cancelForCost(_ cost: Duration) {
        guard !isCancelled else { return }
        let millis = Int((cost / .milliseconds(1)).rounded(.up))
        let reason = "subscription cancelled: evaluating a commit took \(millis) ms of CPU or more, over the budget "
            + "of \(limits.subscriptionBudgetMillis) ms"
        // Updates held back behind unsent pages are dropped with them: the error ends the stream.
        cancel()
        connection?.send(#"{"error":\#(JSONValue.string(reason).text)}"#)
        onCancelled()
    }

    // MARK: - Paging the initial result

    /// Builds page `page` (objects from `start`) on a background queue, then sends it.
    private func buildPage(_ page: Int, from start: Int, of frozen: Frozen<Results<StoredEvent>>) {
        let subscription = WeakLoopBound(self, loop: loop)
        let pageBytes = limits.initialPageBytes
        DispatchQueue.global().async {
            let results = frozen.value
            let count = results.count
            var objects: [String] = []
            var bytes = 0
            var index = start
            while index < count, bytes < pageBytes {
                let text = results[index].customEventRepresentation()
                bytes += text.utf8.count + 1
                objects.append(text)
                index += 1
            }
            let last = index >= count
            let line = #"{"initial":{"count":\#(count),"page":\#(page),"objects":[\#(objects.joined(separator: ","))],"#
                + #""last":\#(last)}}"#
            let next = index
            subscription.execute { $0.sendPage(line, page: page, next: next, last: last, of: frozen) }
        }
    }

    private func sendPage(_ line: String, page: Int, next: Int, last: Bool, of frozen: Frozen<Results<StoredEvent>>) {
        guard !isCancelled, let connection else { return }
        guard last else {
            pageDeadline = loop.scheduleTimer(after: .seconds(limits.pageTimeoutSeconds)) { [weak self] in
                self?.dropSlowReader()
            }
            connection.send(line) { [weak self] in
                self?.pageDeadline?.cancel()
                self?.buildPage(page + 1, from: next, of: frozen)
            }
            return
        }
        connection.send(line)
        let pending = heldBack ?? []
        heldBack = nil
        heldBackBytes = 0
        for update in pending { connection.send(update) }
    }

    /// Disconnects the client (it does not read what it asked for) and stops.
    private func dropSlowReader() {
        connection?.dropSlowReader()
        cancel()
    }

    /// Whether `keyPath` can only be read as one key path inside `SORT(… ASC)`: not empty, and
    /// no whitespace, comma or parenthesis, which would end it and go on with more of the query.
    static func isPlainKeyPath(_ keyPath: String) -> Bool {
        !keyPath.isEmpty && !keyPath.unicodeScalars.contains {
            $0.properties.isWhitespace || $0 == "," || $0 == "(" || $0 == ")"
        }
    }

    // MARK: - Serialization

    private static func objects(_ results: Results<StoredEvent>, at indices: some Sequence<Int>,
                                shared: SharedSerialization) -> String {
        indices.map { shared.text(of: results[$0]) }.joined(separator: ",")
    }

    /// Where the rows modified (old indices) are in the new results.
    static func newIndices(of modifications: [Int], deletions: [Int], insertions: [Int]) -> [Int] {
        let deleted = Set(deletions)
        return modifications.compactMap { old -> Int? in
            guard !deleted.contains(old) else { return nil }
            var new = old - deletions.prefix { $0 < old }.count
            for insertion in insertions where insertion <= new { new += 1 }
            return new
        }
    }
}
