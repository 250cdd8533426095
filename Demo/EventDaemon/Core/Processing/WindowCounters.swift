import Foundation

/// Counts events per key (per type, per source) over a sliding window, in bounded memory: keys
/// come from clients, so neither their number nor their length may grow without bound.
///
/// - At most `maxKeys` distinct keys are tracked in the window. A key that arrives when that
///   many are tracked takes the place of a tracked key with the smallest count, whose counts
///   move to *other*: the heavy keys stay tracked however many
///   one-off keys a client sends, as in the Space-Saving algorithm, but counts stay exact (a
///   newly tracked key starts from its own events; what it had before counts as other).
/// - A key longer than `maxKeyBytes` UTF-8 bytes is tracked by its first bytes (cut at a
///   character boundary) followed by `…`.
/// - The window is kept as at most ``bucketCount`` buckets of whole seconds, with running totals,
///   so a ``summary(now:top:)`` costs O(tracked keys), not O(events) or O(window × keys).
///
/// Keys are compared by their UTF-8 bytes (``UTF8Key``), as the store compares the stored values.
///
/// - Complexity: O(1) amortised per event of a tracked key, O(`maxKeys` + ``bucketCount``) for
///   one that takes another's place; memory O(``bucketCount`` × `maxKeys`).
struct WindowCounters {
    /// The most buckets the window is divided into.
    static let bucketCount = 60

    let windowSeconds: Int
    let maxKeys: Int
    let maxKeyBytes: Int
    /// The width of a bucket, in seconds.
    let bucketSeconds: Int

    private struct Bucket {
        var counts: [UTF8Key: Int] = [:]
        var other = 0
    }

    /// Per bucket (epoch second / ``bucketSeconds``).
    private var buckets: [Int: Bucket] = [:]
    /// The sums of the buckets in `buckets`.
    private var totals: [UTF8Key: Int] = [:]
    private var otherTotal = 0

    /// What the `stats` reply shows of one counter: the largest counts, and the rest together.
    struct Summary: Equatable {
        /// The `top` largest counts (ties in key order).
        var top: [(key: String, count: Int)]
        /// Events of every other key, tracked or not.
        var other: Int
        /// Distinct keys tracked in the window (at most `maxKeys`).
        var trackedKeys: Int

        static func == (left: Summary, right: Summary) -> Bool {
            left.other == right.other && left.trackedKeys == right.trackedKeys
                && left.top.map(\.key) == right.top.map(\.key) && left.top.map(\.count) == right.top.map(\.count)
        }
    }

    init(windowSeconds: Int, maxKeys: Int = 1_000, maxKeyBytes: Int = 256) {
        self.windowSeconds = max(1, windowSeconds)
        self.maxKeys = max(1, maxKeys)
        self.maxKeyBytes = max(4, maxKeyBytes)
        bucketSeconds = (self.windowSeconds + Self.bucketCount - 1) / Self.bucketCount
    }

    /// Counts one event of `key` at `date`.
    mutating func add(_ key: String, at date: Date) {
        let bucket = Int(date.timeIntervalSince1970) / bucketSeconds
        expire(now: date)
        let tracked = UTF8Key(truncated(key))
        if totals[tracked] == nil, totals.count >= maxKeys { evictSmallest() }
        totals[tracked, default: 0] += 1
        buckets[bucket, default: Bucket()].counts[tracked, default: 0] += 1
    }

    /// Stops tracking a key with the smallest count (among equals, any); its
    /// counts move to other, bucket by bucket, so they still leave the window on time.
    ///
    /// - Complexity: O(tracked keys + buckets).
    private mutating func evictSmallest() {
        // Counts only: ordering ties by their keys' bytes would cost a long common prefix per
        // comparison, which a client choosing its sources could make every comparison pay.
        guard let smallest = totals.min(by: { $0.value < $1.value })?.key else { return }
        for index in Array(buckets.keys) {
            guard let count = buckets[index]?.counts.removeValue(forKey: smallest) else { continue }
            buckets[index]?.other += count
        }
        otherTotal += totals.removeValue(forKey: smallest) ?? 0
    }

    /// Drops the buckets that ended before the window ending at `now`.
    ///
    /// - Complexity: O(expired buckets' keys); at most ``bucketCount`` buckets are looked at.
    mutating func expire(now: Date) {
        let first = (Int(now.timeIntervalSince1970) - windowSeconds + 1) / bucketSeconds
        guard let oldest = buckets.keys.min(), oldest < first else { return }
        for (index, bucket) in buckets where index < first {
            for (key, count) in bucket.counts {
                let left = totals[key, default: 0] - count
                totals[key] = left > 0 ? left : nil
            }
            otherTotal -= bucket.other
            buckets[index] = nil
        }
    }

    /// The counts tracked now (call ``expire(now:)`` first): cheap to copy out of a lock and
    /// summarize outside it.
    var trackedCounts: (counts: [UTF8Key: Int], other: Int) { (totals, otherTotal) }

    /// The `top` largest counts and the rest of the window ending at `now`.
    mutating func summary(now: Date, top: Int) -> Summary {
        expire(now: now)
        return Self.summary(of: totals, other: otherTotal, top: top)
    }

    /// The `top` largest of `counts` (ties in byte order of their keys), and the rest plus
    /// `other` together.
    ///
    /// - Complexity: O(n log n) in the tracked keys.
    static func summary(of counts: [UTF8Key: Int], other: Int, top: Int) -> Summary {
        let sorted = counts.sorted { left, right in
            left.value != right.value ? left.value > right.value
                : left.key.string.utf8.lexicographicallyPrecedes(right.key.string.utf8)
        }
        let shown = sorted.prefix(max(0, top))
        let rest = sorted.dropFirst(shown.count).reduce(0) { $0 + $1.value }
        return Summary(top: shown.map { ($0.key.string, $0.value) }, other: other + rest, trackedKeys: counts.count)
    }

    /// `key`, or its first `maxKeyBytes` bytes (at a character boundary) and `…`.
    private func truncated(_ key: String) -> String {
        guard key.utf8.count > maxKeyBytes else { return key }
        var bytes = 0
        var end = key.startIndex
        for character in key {
            let size = character.utf8.count
            guard bytes + size <= maxKeyBytes - 3 else { break }
            bytes += size
            end = key.index(after: end)
        }
        return String(key[..<end]) + "…"
    }
}
