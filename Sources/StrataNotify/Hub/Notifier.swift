import StrataEngine
@_spi(StrataDaemon) import StrataSupport

/// What the notifier worker sees of a notifier, whatever it computes.
package protocol AnyNotifier: AnyObject, Sendable {
    /// Brings the notifier's pending change up to `pin`'s version (no-op when it is there).
    func prepare(to pin: PinnedSnapshot, store: Store)
    /// The version of the pending change, if one is computed and not yet delivered.
    var pendingVersion: UInt64? { get }
    /// The pin of the pending change.
    var pendingPin: PinnedSnapshot? { get }
    /// The version last delivered, if any.
    var deliveredVersion: UInt64? { get }
    /// Moves past `pin`'s version without reporting its changes.
    func skip(to pin: PinnedSnapshot, store: Store)
    /// Whether the notifier has delivered its initial state.
    var hasDeliveredInitial: Bool { get }
    /// Computes the initial state at `pin`'s version, even when the worker already computed it
    /// at a newer one (for a Realm that does not advance by itself). No-op after the initial
    /// delivery.
    func prepareInitial(at pin: PinnedSnapshot, store: Store)
    /// Holds each computation to `budget` of the worker's CPU time: each change computation to
    /// its ``ComputeBudget/perChange`` limit, the initial state's to its
    /// ``ComputeBudget/initial`` limit (when set). A computation past its limit gives up early
    /// where the query polls ``CPUDeadline``, or is measured over it at its end; either way its
    /// result is discarded, the notifier stops for good (it computes and delivers nothing more),
    /// and ``ComputeBudget/onExceeded`` runs on the thread that computed. Its owner then
    /// unregisters it. Set it before registering the notifier to hold the initial state to it as
    /// well (the hub then computes that initial state beside its worker).
    func limitCost(_ budget: ComputeBudget)
    /// Whether the initial state is yet to be delivered and only the notifier hub may compute
    /// it: the notifier's budget limits it (see ``limitCost(_:)``), so it may be costly, and a
    /// delivering thread (a service's event loop) must not run it; it leaves the notifier to the
    /// hub, whose next pass delivers it.
    var awaitsInitialFromWorker: Bool { get }
    /// Claims the computation of the initial state for the hub's queue of initial states: true
    /// when the budget limits it and it is yet to be computed (then call
    /// ``prepareClaimedInitial(to:store:)``; every other `prepare` leaves the notifier alone
    /// until it returns), false otherwise.
    func claimInitialComputation() -> Bool
    /// Computes the initial state claimed with ``claimInitialComputation()`` at `pin`, held to
    /// the budget, and releases the claim.
    func prepareClaimedInitial(to pin: PinnedSnapshot, store: Store)
}

extension AnyNotifier {
    /// Ignores the budget (for notifiers that do not measure their computations).
    package func limitCost(_ budget: ComputeBudget) {}

    /// False: a notifier without a budget may compute its initial state wherever it is asked.
    package var awaitsInitialFromWorker: Bool { false }

    /// False: a notifier without a budget computes its initial state in the worker's pass.
    package func claimInitialComputation() -> Bool { false }

    /// Nothing to compute: see ``claimInitialComputation()``.
    package func prepareClaimedInitial(to pin: PinnedSnapshot, store: Store) {}

    /// Holds each change computation (not the initial state) to `budget`; `onExceeded` gets the
    /// CPU time spent (see ``limitCost(_:)``).
    package func limitCost(to budget: Duration, onExceeded: @escaping @Sendable (_ cpuTime: Duration) -> Void) {
        limitCost(ComputeBudget(perChange: budget, initial: nil) { onExceeded($0.cpuTime) })
    }
}

/// One registration: a ``ChangeComputer`` and its state between the worker that computes and
/// the scheduler that delivers.
///
/// The notifier remembers the state it last delivered (and pins that version so the store keeps
/// the changesets after it). ``prepare(to:store:)`` computes the change from the delivered state
/// to a newer version; if another commit lands before delivery, the next `prepare` recomputes
/// from the delivered state again, so several commits arrive as one merged change.
/// ``takeDelivery(at:)`` hands the pending change over on the delivering thread.
package final class Notifier<Computer: ChangeComputer>: AnyNotifier, @unchecked Sendable {
    // Safety: the mutable state is inside `locked`; `computer` is immutable and Sendable.

    /// What a delivery carries.
    package enum Delivery {
        /// The first state (Realm's `.initial`).
        case initial(Computer.State)
        /// A change from the delivered version `from` to `to`, and the new state.
        case change(Computer.State, Computer.Change, from: UInt64, to: UInt64)
    }

    let computer: Computer

    private struct Pending {
        var pin: PinnedSnapshot
        var state: Computer.State
        var change: Computer.Change?
        var isInitial: Bool
        var from: UInt64
    }

    private struct Locked {
        var delivered: (pin: PinnedSnapshot, state: Computer.State)?
        var pending: Pending?
        /// Bumped whenever `delivered` changes, so a computation based on an older one is dropped.
        var generation: UInt64 = 0
        /// Whether the initial state is being computed by the holder of the claim
        /// (``claimInitialComputation()``): every other `prepare` leaves it alone.
        var initialClaimed = false
    }

    private let locked = LockedValueBox(Locked())

    /// The CPU budget of the computations (``limitCost(_:)``).
    private let budget = LockedValueBox<ComputeBudget?>(nil)
    /// Set once a computation went over the budget: nothing more is computed.
    private let isStopped = LockedValueBox(false)

    /// What a computation starts from.
    private enum Base {
        case fresh
        case initial(PinnedSnapshot, Computer.State)
        case delivered(PinnedSnapshot, Computer.State)
    }

    /// Creates a notifier; register it with a ``NotifierHub``.
    package init(_ computer: Computer) {
        self.computer = computer
    }

    /// Creates a notifier whose baseline is the state at `pin`, as if delivered there: every
    /// commit after `pin` is reported, also one that lands before the worker first runs. For
    /// observers with no initial callback (objects), whose baseline must be the version they
    /// registered at.
    package init(_ computer: Computer, baselineAt pin: PinnedSnapshot) {
        self.computer = computer
        let state = computer.initialState(at: pin.snapshot)
        locked.withLockedValue { $0.delivered = (pin, state) }
    }

    package var pendingVersion: UInt64? { locked.withLockedValue { $0.pending?.pin.version } }

    package var pendingPin: PinnedSnapshot? { locked.withLockedValue { $0.pending?.pin } }

    /// The version last delivered, if any.
    package var deliveredVersion: UInt64? { locked.withLockedValue { $0.delivered?.pin.version } }

    // Compiled for the table query's computer too: the worker calls `prepare` through
    // `AnyNotifier`, which reaches the generic code, and that looked up the metadata of its
    // tuple and optional types on every call (about a quarter of a one-row change's computation).
    @_specialize(where Computer == TableResultsComputer)
    package func prepare(to pin: PinnedSnapshot, store: Store) {
        prepare(to: pin, store: store, holdingClaim: false)
    }

    package func claimInitialComputation() -> Bool {
        guard budget.withLockedValue({ $0?.initial != nil }), !isStopped.withLockedValue({ $0 }) else { return false }
        return locked.withLockedValue { locked in
            guard locked.delivered == nil, locked.pending == nil, !locked.initialClaimed else { return false }
            locked.initialClaimed = true
            return true
        }
    }

    package func prepareClaimedInitial(to pin: PinnedSnapshot, store: Store) {
        defer { locked.withLockedValue { $0.initialClaimed = false } }
        prepare(to: pin, store: store, holdingClaim: true)
    }

    @_specialize(where Computer == TableResultsComputer)
    private func prepare(to pin: PinnedSnapshot, store: Store, holdingClaim: Bool) {
        guard !isStopped.withLockedValue({ $0 }) else { return }
        let snapshot: (Base, UInt64)? = locked.withLockedValue { locked in
            if locked.initialClaimed && !holdingClaim { return nil }
            if let pending = locked.pending, pending.pin.version >= pin.version { return nil }
            if let pending = locked.pending, pending.isInitial {
                return (.initial(pending.pin, pending.state), locked.generation)
            }
            if let delivered = locked.delivered {
                if delivered.pin.version >= pin.version { return nil }
                return (.delivered(delivered.pin, delivered.state), locked.generation)
            }
            return (.fresh, locked.generation)
        }
        guard let (base, generation) = snapshot else { return }
        let budget = self.budget.withLockedValue { $0 }
        let isInitial = if case .delivered = base { false } else { true }
        let limit = budget?.limit(isInitial: isInitial)
        // The thread's CPU clock is a system call: read only to hold a computation to a budget.
        let started = limit == nil ? .zero : ThreadCPUTime.now
        var deadlinePassed = false
        let computed: Pending
        if let limit {
            (computed, deadlinePassed) = CPUDeadline.run(within: limit) { compute(from: base, to: pin, store: store) }
        } else {
            computed = compute(from: base, to: pin, store: store)
        }
        if let budget, let limit {
            let cost = ThreadCPUTime.now - started
            if deadlinePassed || cost > limit {
                isStopped.withLockedValue { $0 = true }
                budget.onExceeded(ComputeOverrun(cpuTime: cost, limit: limit, isInitial: isInitial))
                return
            }
        }
        locked.withLockedValue { locked in
            guard locked.generation == generation else { return }
            if let pending = locked.pending, pending.pin.version >= pin.version { return }
            locked.pending = computed
        }
    }

    /// The state (and change) at `pin`, computed from `base`.
    private func compute(from base: Base, to pin: PinnedSnapshot, store: Store) -> Pending {
        switch base {
        case .fresh:
            return Pending(pin: pin, state: computer.initialState(at: pin.snapshot), change: nil, isInitial: true,
                           from: pin.version)
        case .initial(let from, let state):
            let (next, _) = advance(state, from: from, to: pin, store: store)
            return Pending(pin: pin, state: next, change: nil, isInitial: true, from: pin.version)
        case .delivered(let from, let state):
            let (next, change) = advance(state, from: from, to: pin, store: store)
            return Pending(pin: pin, state: next, change: change, isInitial: false, from: from.version)
        }
    }

    private func advance(_ state: Computer.State, from: PinnedSnapshot, to: PinnedSnapshot,
                         store: Store) -> (Computer.State, Computer.Change?) {
        let changes = CombinedChanges(store.changesets(after: from.version).map { sets in
            sets.filter { $0.version <= to.version }
        }, from: from.version, to: to.version)
        return computer.advance(state, from: from.snapshot, to: to.snapshot, changes: changes)
    }

    /// Takes the pending change computed for `version`, making its state the delivered one.
    ///
    /// - Returns: what to deliver, or nil when nothing is pending at that version or the change
    ///   was empty.
    package func takeDelivery(at version: UInt64) -> Delivery? {
        locked.withLockedValue { locked -> Delivery? in
            guard let pending = locked.pending, pending.pin.version == version else { return nil }
            locked.pending = nil
            locked.delivered = (pending.pin, pending.state)
            locked.generation &+= 1
            if pending.isInitial { return .initial(pending.state) }
            guard let change = pending.change else { return nil }
            return .change(pending.state, change, from: pending.from, to: version)
        }
    }

    package func limitCost(_ budget: ComputeBudget) {
        self.budget.withLockedValue { $0 = budget }
    }

    package var awaitsInitialFromWorker: Bool {
        guard budget.withLockedValue({ $0?.initial != nil }) else { return false }
        return locked.withLockedValue { $0.delivered == nil }
    }

    /// Whether the notifier has delivered its initial state.
    package var hasDeliveredInitial: Bool { locked.withLockedValue { $0.delivered != nil } }

    package func prepareInitial(at pin: PinnedSnapshot, store: Store) {
        let needed = locked.withLockedValue { locked -> Bool in
            guard locked.delivered == nil else { return false }
            if let pending = locked.pending, pending.pin.version > pin.version { locked.pending = nil }
            return true
        }
        if needed { prepare(to: pin, store: store) }
    }

    /// Moves the delivered state to `pin` without reporting what changed (a commit made with
    /// `withoutNotifying:` this token). Does nothing before the initial delivery.
    package func skip(to pin: PinnedSnapshot, store: Store) {
        guard hasDeliveredInitial else { return }
        prepare(to: pin, store: store)
        locked.withLockedValue { locked in
            guard let pending = locked.pending, pending.pin.version == pin.version, !pending.isInitial else { return }
            locked.pending = nil
            locked.delivered = (pending.pin, pending.state)
            locked.generation &+= 1
        }
    }
}
