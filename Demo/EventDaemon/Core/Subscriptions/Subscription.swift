import Dispatch
import Foundation
@_spi(StrataDaemon) import Strata
@_spi(StrataDaemon) import StrataSupport

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
/// instead of queueing them. The snapshot pins a version, so the paging keeps the rules of
/// ``PagingWatch``: a client that takes no byte of a waiting page for
/// ``DaemonLimits/pageTimeoutSeconds`` is disconnected (counted as `stalledPagesDisconnected`),
/// and once ``DaemonLimits/maxPinnedBytes`` of commits landed after the paged version the
/// subscription is cancelled with an error line (counted as `pagingCancelled`). Updates that
/// arrive meanwhile wait, in order, until the last page went (counted against
/// ``DaemonLimits/maxQueuedOutputBytes``).
///
/// Subscriptions with the same query, sort and key paths share one ``SharedQuery``: one notifier
/// and one update line per commit for all of them.
///
/// The notifier worker's CPU time for this query is budgeted from the first computation on:
/// ``DaemonLimits/initialBudgetMillis`` for the initial result, ``DaemonLimits/subscriptionBudgetMillis``
/// for each commit (whether or not it changed the result). String tests and paths through maps,
/// links and subqueries give up at the deadline; past it the notifier stops at once and the
/// subscription is cancelled with `{"error":"subscription cancelled: …"}` (counted as
/// `subscriptionsCancelled`), which may come before the last page: nothing of the subscription
/// follows it. Serialization on the loop is not budgeted (linear in the bytes the client
/// receives). Lives on the daemon's loop thread.
final class Subscription: SharedQuery.Member {
    /// The query this subscription is a member of (nil once cancelled).
    private var query: SharedQuery?
    private weak var connection: ClientConnection?
    private let limits: DaemonLimits
    private let loop: LibUVEventLoop
    private let realm: Realm
    private let onCancelled: (DaemonStatistics.LimitCounter) -> Void
    /// Update lines waiting for the last page of the initial result (nil when no initial result
    /// is being paged).
    private var heldBack: [String]?
    private var heldBackBytes = 0
    private var isCancelled = false
    /// The initial result being paged: its frozen snapshot (which pins a version: released as
    /// soon as the paging ends or is cancelled), the rules the client must keep meanwhile, and
    /// the timer that checks them.
    private var paging: (frozen: Frozen<Results<StoredEvent>>, watch: PagingWatch, timer: TimerHandle)?

    /// Subscribes; the lines go to `connection`, and `onCancelled` runs with the limit's counter
    /// if the subscription cancels itself (over its CPU budget, or paged past
    /// ``DaemonLimits/maxPinnedBytes``).
    ///
    /// - Throws: ``IngestRejection`` `query_too_long` or `pattern_too_long` (see ``QueryCost``),
    ///   `patterns_too_long`, or `bad_query` naming the position when the RQL or the sort key path
    ///   is invalid, or naming the key path that names no property (or has an empty component, or
    ///   goes past a value).
    init(realm: Realm, query: String, sort: String?, ascending: Bool, keyPaths: [String]?, limits: DaemonLimits,
         queries: SharedQueries, connection: ClientConnection,
         onCancelled: @escaping (DaemonStatistics.LimitCounter) -> Void) throws(IngestRejection) {
        try QueryCost.check(query: query, sort: sort, limits: limits)
        let signature = SharedQuery.Signature(query: query, sort: sort, ascending: ascending,
                                                           keyPaths: keyPaths)
        let shared = try queries.query(for: signature, keyPaths: keyPaths, limits: limits) { () throws(IngestRejection) in
            try SubscriptionCheck.results(in: realm, query: query, sort: sort, ascending: ascending)
        }
        self.connection = connection
        self.limits = limits
        self.onCancelled = onCancelled
        guard let loop = LibUVEventLoop.current else { preconditionFailure("a subscription lives on the daemon's loop") }
        self.loop = loop
        self.realm = realm
        self.query = shared
        shared.join(self)
    }

    /// Stops the notifications (and the paging of the initial result).
    func cancel() {
        isCancelled = true
        heldBack = nil
        stopPaging()
        query?.leave(self)
        query = nil
    }

    deinit {
        paging?.timer.cancel()
        query?.leave(self)
    }

    // MARK: - SharedQuery.Member

    func receiveInitial(_ frozen: Frozen<Results<StoredEvent>>) {
        guard !isCancelled else { return }
        heldBack = []
        startPaging(frozen)
    }

    func receive(line: String) {
        guard !isCancelled else { return }
        emit(line)
    }

    func queryExceededBudget(_ overrun: ComputeOverrun) {
        query = nil   // the query stopped and let its members go
        cancelForCost(overrun)
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

    private func cancelForCost(_ overrun: ComputeOverrun) {
        let millis = Int((overrun.cpuTime / .milliseconds(1)).rounded(.up))
        let budget = Int((overrun.limit / .milliseconds(1)).rounded(.up))
        let work = overrun.isInitial ? "computing the initial result" : "evaluating a commit"
        cancel(because: "\(work) took \(millis) ms of CPU or more, over the budget of \(budget) ms",
               counting: .subscriptionsCancelled)
    }

    /// Cancels, sends `{"error":"subscription cancelled: <reason>"}` and reports it.
    private func cancel(because reason: String, counting counter: DaemonStatistics.LimitCounter) {
        guard !isCancelled else { return }
        // Updates held back behind unsent pages are dropped with them: the error ends the stream.
        cancel()
        connection?.send(#"{"error":\#(JSONValue.string("subscription cancelled: " + reason).text)}"#)
        onCancelled(counter)
    }

    // MARK: - Paging the initial result

    /// Starts paging `frozen` (page 0 first) under the rules of ``PagingWatch``.
    private func startPaging(_ frozen: Frozen<Results<StoredEvent>>) {
        guard let reading = pagingReading() else { return }
        let interval = PagingWatch.checkInterval(for: limits)
        let timer = loop.scheduleTimer(after: interval, repeating: interval) { [weak self] in self?.checkPaging() }
        paging = (frozen, PagingWatch(limits: limits, at: reading), timer)
        buildPage(0, from: 0)
    }

    /// Stops the paging's checks and releases its snapshot.
    private func stopPaging() {
        paging?.timer.cancel()
        paging = nil
    }

    private func pagingReading() -> PagingWatch.Reading? {
        guard let connection else { return nil }
        return PagingWatch.Reading(now: .now, deliveredBytes: connection.deliveredBytes,
                                   queuedBytes: connection.queuedBytes, committedBytes: realm.committedLogBytes)
    }

    /// Applies the paging rules: disconnects a stalled client, cancels a paging that pinned its
    /// version for too many commits.
    private func checkPaging() {
        guard let reading = pagingReading(), var watch = paging?.watch else { return }
        let verdict = watch.check(reading)
        paging?.watch = watch
        switch verdict {
        case nil:
            return
        case .stalled(let seconds):
            connection?.dropStalledReader(stalledFor: seconds)
            cancel()
        case .pinnedTooMuch(let bytes, let limit):
            cancel(because: "the initial result was still being paged after \(bytes) bytes of later commits "
                       + "(the limit is \(limit)): read faster, or subscribe to a smaller result",
                   counting: .pagingCancelled)
        }
    }

    /// Builds page `page` (objects from `start`) on a background queue, then sends it.
    private func buildPage(_ page: Int, from start: Int) {
        guard let frozen = paging?.frozen else { return }
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
            subscription.execute { $0.sendPage(line, page: page, next: next, last: last) }
        }
    }

    private func sendPage(_ line: String, page: Int, next: Int, last: Bool) {
        guard !isCancelled, let connection else { return }
        guard last else {
            // The write's callback must not hold the snapshot: a cancelled paging releases it.
            connection.send(line) { [weak self] in self?.buildPage(page + 1, from: next) }
            return
        }
        stopPaging()
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
}
