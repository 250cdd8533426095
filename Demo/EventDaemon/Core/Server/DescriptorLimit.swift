#if canImport(Glibc)
import Glibc
#endif

/// The daemon's file descriptors: every connection holds one, and the store needs its own (its
/// lock file, page file and log segment, a new log segment at each checkpoint, the audit
/// store's files), so connections may never take them all: a checkpoint that finds no
/// descriptor for its new log segment cannot trim the log.
public enum DescriptorLimit {
    /// Descriptors never given to connections: the daemon's own at start (standard streams, the
    /// event loop, the listeners, the store's and the audit store's files: about 25) and what the
    /// stores open later (a new log segment at each checkpoint, scratch files, a compaction's
    /// new file).
    public static let reserve = 64

    /// The process's `RLIMIT_NOFILE`: the soft limit (what `open` and `accept` are held to) and
    /// the hard limit (how far the process may raise it); `Int.max` for unlimited.
    public static var current: (soft: Int, hard: Int) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return (.max, .max) }
        return (clamped(limit.rlim_cur), clamped(limit.rlim_max))
    }

    /// Raises the soft limit to the hard limit (systemd and most shells start services with a
    /// soft limit of 1,024 and a far higher hard one).
    ///
    /// - Returns: the soft limit before and after (unchanged when the raise was refused).
    @discardableResult
    public static func raiseSoftLimit() -> (before: Int, after: Int) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return (.max, .max) }
        let before = clamped(limit.rlim_cur)
        guard limit.rlim_cur < limit.rlim_max else { return (before, before) }
        var raised = limit
        raised.rlim_cur = limit.rlim_max
        guard setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 else { return (before, before) }
        return (before, clamped(raised.rlim_cur))
    }

    /// The most connections a soft limit of `softLimit` descriptors leaves room for next to the
    /// ``reserve`` (0 when it leaves none).
    public static func connectionCap(softLimit: Int) -> Int {
        max(0, softLimit - reserve)
    }

    private static func clamped(_ value: rlim_t) -> Int {
        value > rlim_t(Int.max) ? .max : Int(value)  // RLIM_INFINITY is all ones
    }
}
