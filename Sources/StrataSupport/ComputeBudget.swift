/// The CPU time a notifier's computations may take on the notifier worker, for services that
/// must not let one observer starve the others: each computation runs under a ``CPUDeadline``
/// (the query gives up early where it polls it) and is measured at its end; past its limit the
/// notifier stops for good and ``onExceeded`` runs with what went over.
///
/// ```swift
/// let budget = ComputeBudget(perChange: .milliseconds(50), initial: .seconds(1)) { overrun in
///     print("stopped: \(overrun.cpuTime) of CPU, over \(overrun.limit)")
/// }
/// ```
///
/// Not part of Strata's API: SPI for the demo daemon in `Demo/`, which imports it with
/// `@_spi(StrataDaemon) import StrataSupport`; it may change in any release.
@_spi(StrataDaemon) public struct ComputeBudget: Sendable {
    /// The CPU time one change computation (one commit, or several merged) may take.
    package var perChange: Duration
    /// The CPU time the initial state's computation may take (including bringing a computed but
    /// undelivered initial state up to a newer version); nil leaves it unbounded.
    package var initial: Duration?
    /// Runs once, on the thread that computed (the notifier worker, or the one computing initial
    /// states beside it), when a computation went over its limit.
    package var onExceeded: @Sendable (ComputeOverrun) -> Void

    /// A budget of `perChange` per change and `initial` for the initial state.
    @_spi(StrataDaemon) public init(
        perChange: Duration, initial: Duration?, onExceeded: @escaping @Sendable (ComputeOverrun) -> Void
    ) {
        self.perChange = perChange
        self.initial = initial
        self.onExceeded = onExceeded
    }

    /// The limit of a computation of the initial state (`isInitial`) or of a change.
    package func limit(isInitial: Bool) -> Duration? { isInitial ? initial : perChange }
}

/// A computation that went over its ``ComputeBudget``.
///
/// Not part of Strata's API (SPI for the demo daemon, as ``ComputeBudget`` is).
@_spi(StrataDaemon) public struct ComputeOverrun: Sendable, Equatable {
    /// The CPU time it took before it gave up or ended.
    @_spi(StrataDaemon) public var cpuTime: Duration
    /// The limit it went over.
    @_spi(StrataDaemon) public var limit: Duration
    /// Whether it computed the initial state (otherwise a change).
    @_spi(StrataDaemon) public var isInitial: Bool

    /// An overrun of `cpuTime` over `limit`.
    package init(cpuTime: Duration, limit: Duration, isInitial: Bool) {
        self.cpuTime = cpuTime
        self.limit = limit
        self.isInitial = isInitial
    }
}
