/// The rules a client paging through a subscription's initial result must keep while the
/// frozen snapshot its pages come from pins a version (the store keeps every later changeset,
/// and the leaves the snapshot still reads, in memory):
///
/// - it takes some bytes at least every ``DaemonLimits/pageTimeoutSeconds`` while a page waits
///   for it (progress, not whole pages: a client that reads slowly but steadily is not stalled;
///   what reached it is measured past the kernel's buffers, which take more of a page only once
///   half drained);
/// - it is done before ``DaemonLimits/maxPinnedBytes`` of commits landed after that version (a
///   client that reads, however slowly, cannot pin a version for ever).
///
/// A state machine: a timer on the loop feeds it readings every ``checkInterval(for:)``, and
/// it answers what to do.
struct PagingWatch {
    /// Why the paging must stop.
    enum Verdict: Equatable {
        /// A page waited and the client took no byte of it for `seconds`.
        case stalled(seconds: Int)
        /// `bytes` of commits landed after the paged version, over `limit`.
        case pinnedTooMuch(bytes: UInt64, limit: Int)
    }

    /// What the connection and the store say at one check.
    struct Reading {
        /// When it was taken.
        var now: ContinuousClock.Instant
        /// Bytes of output that reached the client so far (``ClientConnection/deliveredBytes``).
        var deliveredBytes: Int
        /// Bytes of output waiting (``ClientConnection/queuedBytes``): none means the next page is
        /// being built, so the client is not the one waiting.
        var queuedBytes: Int
        /// The commit-log bytes the store appended so far (`Realm.committedLogBytes`).
        var committedBytes: UInt64
    }

    private let pageTimeoutSeconds: Int
    private let maxPinnedBytes: Int
    /// The committed bytes when the version was pinned.
    private let baseline: UInt64
    private var lastDeliveredBytes: Int
    private var lastProgress: ContinuousClock.Instant

    /// Starts watching at `reading`, taken when the snapshot was frozen.
    init(limits: DaemonLimits, at reading: Reading) {
        pageTimeoutSeconds = limits.pageTimeoutSeconds
        maxPinnedBytes = limits.maxPinnedBytes
        baseline = reading.committedBytes
        lastDeliveredBytes = reading.deliveredBytes
        lastProgress = reading.now
    }

    /// How often to check: a quarter of the page timeout, at most a second (so that a fast
    /// ingest overshoots ``DaemonLimits/maxPinnedBytes`` by at most a second of commits).
    static func checkInterval(for limits: DaemonLimits) -> Duration {
        min(.seconds(limits.pageTimeoutSeconds) / 4, .seconds(1))
    }

    /// Takes `reading` into account; returns why the paging must stop, or nil.
    mutating func check(_ reading: Reading) -> Verdict? {
        let pinned = reading.committedBytes &- baseline
        if pinned > UInt64(maxPinnedBytes) { return .pinnedTooMuch(bytes: pinned, limit: maxPinnedBytes) }
        if reading.deliveredBytes != lastDeliveredBytes || reading.queuedBytes == 0 {
            lastDeliveredBytes = reading.deliveredBytes
            lastProgress = reading.now
            return nil
        }
        guard reading.now - lastProgress >= .seconds(pageTimeoutSeconds) else { return nil }
        return .stalled(seconds: pageTimeoutSeconds)
    }
}
