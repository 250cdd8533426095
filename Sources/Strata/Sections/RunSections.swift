/// Sections that are runs of the sorted rows (the key is the first sort key, so rows with one
/// key are adjacent): kept as each section's key and row count, and updated from a change in
/// O(changes × log sections + sections) — no pass over the rows, no object read again.
struct RunSections<Key: Hashable> {
    /// The keys of the sections, in order.
    private(set) var sectionKeys: [Key]
    /// Rows per section.
    private(set) var counts: [Int]
    /// The first row of each section.
    private(set) var starts: [Int]
    /// The section index of each key.
    private(set) var sectionOfKey: [Key: Int]
    /// Rows in all.
    private(set) var rowCount: Int

    /// The runs of `keys`; nil when a key comes back after another (not runs).
    init?(keys: [Key]) {
        var sectionKeys: [Key] = []
        var counts: [Int] = []
        var seen = Set<Key>()
        for key in keys {
            if let last = sectionKeys.last, last == key {
                counts[counts.count - 1] += 1
            } else {
                guard seen.insert(key).inserted else { return nil }
                sectionKeys.append(key)
                counts.append(1)
            }
        }
        self.init(sectionKeys: sectionKeys, counts: counts)
    }

    init(sectionKeys: [Key], counts: [Int]) {
        self.sectionKeys = sectionKeys
        self.counts = counts
        var starts: [Int] = []
        starts.reserveCapacity(counts.count)
        var total = 0
        for count in counts {
            starts.append(total)
            total += count
        }
        self.starts = starts
        rowCount = total
        sectionOfKey = Dictionary(uniqueKeysWithValues: sectionKeys.enumerated().map { ($1, $0) })
    }

    /// The section holding `row`.
    ///
    /// - Complexity: O(log sections).
    func section(ofRow row: Int) -> Int {
        var low = 0
        var high = starts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if starts[middle] <= row { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// The layout after `change`, or nil when the result is not runs any more (a row landed
    /// inside another key's run); the caller falls back to ``ScatteredSections``.
    ///
    /// - Parameters:
    ///   - newIndex: The new index of a surviving old row.
    ///   - key: The section key of the row at a new index (called for inserted and modified
    ///     rows only).
    func applying(_ change: CollectionIndexChange, newIndex: (Int) -> Int, key: (Int) -> Key) -> RunSections? {
        let deleted = Set(change.deletions)
        var remaining = counts
        for row in change.deletions { remaining[section(ofRow: row)] -= 1 }
        /// Rows that join a key: inserted, or modified into another key (count, first new row).
        var joining: [Key: (count: Int, first: Int)] = [:]
        var movedOut = Set<Int>()
        var changedRows: [(row: Int, key: Key)] = []
        for row in change.modifications where !deleted.contains(row) {
            let new = newIndex(row)
            let newKey = key(new)
            let old = section(ofRow: row)
            guard newKey != sectionKeys[old] else { continue }
            remaining[old] -= 1
            movedOut.insert(row)
            joining[newKey, default: (0, new)].count += 1
            joining[newKey]!.first = min(joining[newKey]!.first, new)
            changedRows.append((new, newKey))
        }
        for row in change.insertions {
            let newKey = key(row)
            joining[newKey, default: (0, row)].count += 1
            joining[newKey]!.first = min(joining[newKey]!.first, row)
            changedRows.append((row, newKey))
        }
        // Each section's place: the new index of a row that stayed in it, else its first joiner.
        var placed: [(key: Key, count: Int, anchor: Int)] = []
        for (index, sectionKey) in sectionKeys.enumerated() {
            let joiners = joining.removeValue(forKey: sectionKey)
            let count = remaining[index] + (joiners?.count ?? 0)
            guard count > 0 else { continue }
            var anchor = joiners?.first ?? Int.max
            if remaining[index] > 0 {
                var row = starts[index]
                while deleted.contains(row) || movedOut.contains(row) { row += 1 }
                anchor = min(anchor, newIndex(row))
            }
            placed.append((sectionKey, count, anchor))
        }
        for (newKey, joiners) in joining { placed.append((newKey, joiners.count, joiners.first)) }
        placed.sort { $0.anchor < $1.anchor }
        let next = RunSections(sectionKeys: placed.map(\.key), counts: placed.map(\.count))
        // Every changed row must sit in its key's run, and every run must start at its anchor.
        for (row, rowKey) in changedRows where next.sectionKeys[next.section(ofRow: row)] != rowKey { return nil }
        for (index, entry) in placed.enumerated() where entry.anchor < next.starts[index] || entry.anchor >= next.starts[index] + entry.count {
            return nil
        }
        return next
    }
}
