import Foundation

/// Counts events per key over a sliding window of whole seconds (per type and per source).
///
/// - Complexity: O(1) amortised per event; memory is bounded by the window times the keys seen
///   in it.
struct WindowCounters {
    let windowSeconds: Int
    /// Per second (epoch), per key.
    private var buckets: [Int: [String: Int]] = [:]

    init(windowSeconds: Int) {
        self.windowSeconds = max(1, windowSeconds)
    }

    mutating func add(_ key: String, at date: Date) {
        let second = Int(date.timeIntervalSince1970)
        buckets[second, default: [:]][key, default: 0] += 1
        expire(before: second - windowSeconds + 1)
    }

    /// The counts of the last window ending at `now`.
    func counts(now: Date) -> [String: Int] {
        let first = Int(now.timeIntervalSince1970) - windowSeconds + 1
        var total: [String: Int] = [:]
        for (second, counts) in buckets where second >= first {
            for (key, count) in counts { total[key, default: 0] += count }
        }
        return total
    }

    private mutating func expire(before first: Int) {
        guard buckets.count > windowSeconds + 1 else { return }
        buckets = buckets.filter { $0.key >= first }
    }
}
