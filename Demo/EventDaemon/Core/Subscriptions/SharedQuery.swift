@_spi(StrataDaemon) import Strata
@_spi(StrataDaemon) import StrataSupport

/// One live query shared by every subscription with the same RQL, sort and key paths: one
/// notifier computes its changes on the worker, and each commit's update line is built once, then
/// written to every member. A thousand subscribers of `TRUEPREDICATE` cost one notifier and one
/// serialization per commit, not a thousand of each (which held every client's acks behind them
/// on the loop thread, and the notifier worker behind a thousand change computations).
///
/// A subscription that joins after the query's initial result was delivered gets its initial
/// result frozen from the live results at once: on the loop thread, outside a delivery, the live
/// results are at the version of the last update the query delivered (a Realm advances and
/// delivers to all of its observers in one step), so the updates that follow apply to it.
///
/// The query's notifier is budgeted (``DaemonLimits/initialBudgetMillis`` for the initial result,
/// ``DaemonLimits/subscriptionBudgetMillis`` per commit); past its budget every member is
/// cancelled and the query leaves the registry (a later subscriber starts it afresh). It stops
/// when its last member leaves. Lives on the daemon's loop thread.
final class SharedQuery {
    /// What a member of a shared query receives.
    protocol Member: AnyObject {
        /// The initial result, frozen at the version the next update starts from.
        func receiveInitial(_ frozen: Frozen<Results<StoredEvent>>)
        /// An update line (or an error line), built once for every member.
        func receive(line: String)
        /// The notifier went over its budget and stopped: the member is no longer served.
        func queryExceededBudget(_ overrun: ComputeOverrun)
    }

    /// A subscription's query as its client sent it (two subscriptions with equal signatures
    /// have equal results and change sets at every version).
    struct Signature: Hashable {
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

    let signature: Signature
    private let results: Results<StoredEvent>
    private var token: NotificationToken?
    private var members: [WeakMember] = []
    private var initialIsDelivered = false
    private let serialization: SharedSerialization
    private weak var registry: SharedQueries?

    private struct WeakMember {
        weak var member: (any Member)?
    }

    fileprivate init(signature: Signature, results: Results<StoredEvent>,
                     keyPaths: [String]?, limits: DaemonLimits, serialization: SharedSerialization,
                     registry: SharedQueries, loop: LibUVEventLoop) throws {
        self.signature = signature
        self.results = results
        self.serialization = serialization
        self.registry = registry
        // Set before the worker sees the notifier, so the initial result is budgeted too.
        let query = WeakLoopBound(self, loop: loop)
        let budget = ComputeBudget(perChange: limits.subscriptionBudget, initial: limits.initialBudget) { overrun in
            query.execute { $0.exceededBudget(overrun) }
        }
        // Key paths come from the network: checked, never passed to the trapping `observe(keyPaths:)`.
        token = try results.observe(validatingKeyPaths: keyPaths, budget: budget) { [weak self] change in
            self?.handle(change)
        }
    }

    deinit { token?.invalidate() }

    /// Adds `member`; it gets the initial result now if the query has delivered it, else with the
    /// others when it comes.
    func join(_ member: any Member) {
        members.append(WeakMember(member: member))
        if initialIsDelivered { member.receiveInitial(Frozen(results)) }
    }

    /// Removes `member`; the query stops once no member is left.
    func leave(_ member: any Member) {
        members.removeAll { $0.member == nil || $0.member === member }
        if members.isEmpty { stop() }
    }

    private func stop() {
        token?.invalidate()
        token = nil
        registry?.remove(self)
    }

    private func handle(_ change: RealmCollectionChange<Results<StoredEvent>>) {
        let current = members.compactMap(\.member)
        switch change {
        case .initial(let results):
            initialIsDelivered = true
            let frozen = Frozen(results)
            for member in current { member.receiveInitial(frozen) }
        case .update(let results, let deletions, let insertions, let modifications):
            let modifiedNow = Self.newIndices(of: modifications, deletions: deletions, insertions: insertions)
            let inserted = objects(results, at: insertions)
            let modified = objects(results, at: modifiedNow)
            let line = #"{"update":{"deletions":\#(deletions),"insertions":\#(insertions),"#
                + #""modifications":\#(modifications),"inserted":[\#(inserted)],"modified":[\#(modified)]}}"#
            for member in current { member.receive(line: line) }
        case .error(let error):
            let line = #"{"error":\#(JSONValue.string("\(error)").text)}"#
            for member in current { member.receive(line: line) }
        }
    }

    private func exceededBudget(_ overrun: ComputeOverrun) {
        let current = members.compactMap(\.member)
        members.removeAll()
        stop()
        for member in current { member.queryExceededBudget(overrun) }
    }

    private func objects(_ results: Results<StoredEvent>, at indices: some Sequence<Int>) -> String {
        indices.map { serialization.text(of: results[$0]) }.joined(separator: ",")
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

/// The shared queries of a daemon, by signature. Lives on the daemon's loop thread.
final class SharedQueries {
    private var queries: [SharedQuery.Signature: SharedQuery] = [:]
    /// Event texts shared by every query.
    let serialization: SharedSerialization
    private let loop: LibUVEventLoop

    init(loop: LibUVEventLoop) {
        self.loop = loop
        serialization = SharedSerialization(loop: loop)
    }

    /// The running query with `signature`, or a new one observing `makeResults()` with
    /// `keyPaths`.
    ///
    /// - Throws: what `makeResults` throws, or `bad_query` for key paths that name no property.
    func query(for signature: SharedQuery.Signature, keyPaths: [String]?, limits: DaemonLimits,
               makeResults: () throws(IngestRejection) -> Results<StoredEvent>) throws(IngestRejection) -> SharedQuery {
        if let running = queries[signature] { return running }
        let results = try makeResults()
        let query: SharedQuery
        do {
            query = try SharedQuery(signature: signature, results: results, keyPaths: keyPaths, limits: limits,
                                    serialization: serialization, registry: self, loop: loop)
        } catch {
            throw .badQuery("\(error)")
        }
        queries[signature] = query
        return query
    }

    /// The queries running now.
    var count: Int { queries.count }

    fileprivate func remove(_ query: SharedQuery) {
        if queries[query.signature] === query { queries[query.signature] = nil }
    }
}
