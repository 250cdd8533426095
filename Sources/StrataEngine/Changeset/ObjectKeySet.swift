/// A set of object keys that stores runs of consecutive keys as ranges: a changeset's inserted
/// or erased objects.
///
/// A transaction's new objects get consecutive keys, so the insertions of a bulk insert are one
/// run however many objects it adds; a `Set<ObjectKey>` of 100,000 keys takes 1 MiB, and 3 MiB
/// while it grows past 98,304. While the keys form at most ``runLimit`` runs they are kept as
/// sorted, disjoint, non-adjacent ranges (searched by bisection); past that, as a hash set. Both
/// forms hold the same elements and compare equal when the elements are equal.
package struct ObjectKeySet: Sendable, Equatable, Sequence, ExpressibleByArrayLiteral, CustomStringConvertible {
    /// The most runs kept as ranges before the set turns into a hash set: inserting into or
    /// removing from the middle of the runs moves the ranges after it.
    static let runLimit = 256

    fileprivate enum Storage: Sendable {
        case runs([ClosedRange<Int64>])
        case scattered(Set<ObjectKey>)
    }

    private var storage = Storage.runs([])
    /// The number of keys.
    package private(set) var count = 0

    /// An empty set.
    package init() {}

    /// A set of `elements`.
    package init<S: Sequence>(_ elements: S) where S.Element == ObjectKey {
        for key in elements { insert(key) }
    }

    package init(arrayLiteral elements: ObjectKey...) {
        self.init(elements)
    }

    /// Whether the set is empty.
    package var isEmpty: Bool { count == 0 }

    /// Whether `key` is in the set.
    ///
    /// - Complexity: O(log r) in the number of runs, or O(1) once scattered.
    package func contains(_ key: ObjectKey) -> Bool {
        switch storage {
        case .runs(let runs):
            let index = Self.firstRun(endingAtOrAfter: key.rawValue, in: runs)
            return index < runs.count && runs[index].contains(key.rawValue)
        case .scattered(let set):
            return set.contains(key)
        }
    }

    /// Adds `key`; returns whether it was new.
    ///
    /// - Complexity: O(1) for a key just after the last run (a transaction's next new object),
    ///   O(r) elsewhere while kept as runs, O(1) once scattered.
    @discardableResult
    package mutating func insert(_ key: ObjectKey) -> Bool {
        let inserted: Bool
        switch storage {
        case .scattered(var set):
            storage = .runs([]) // drops the reference, so `set` is mutated in place
            inserted = set.insert(key).inserted
            storage = .scattered(set)
        case .runs(var runs):
            storage = .runs([])
            inserted = Self.insert(key.rawValue, into: &runs)
            storage = runs.count > Self.runLimit ? .scattered(Set(Self.keys(of: runs))) : .runs(runs)
        }
        if inserted { count += 1 }
        return inserted
    }

    /// Removes `key`; returns it when it was in the set.
    @discardableResult
    package mutating func remove(_ key: ObjectKey) -> ObjectKey? {
        let removed: Bool
        switch storage {
        case .scattered(var set):
            storage = .runs([])
            removed = set.remove(key) != nil
            storage = .scattered(set)
        case .runs(var runs):
            storage = .runs([])
            removed = Self.remove(key.rawValue, from: &runs)
            storage = runs.count > Self.runLimit ? .scattered(Set(Self.keys(of: runs))) : .runs(runs)
        }
        guard removed else { return nil }
        count -= 1
        return key
    }

    /// Adds every key of `other`.
    package mutating func formUnion<S: Sequence>(_ other: S) where S.Element == ObjectKey {
        for key in other { insert(key) }
    }

    /// The keys: ascending while kept as runs, in no particular order once scattered.
    package struct Iterator: IteratorProtocol {
        private var runs: IndexingIterator<[ClosedRange<Int64>]>
        private var run: ClosedRange<Int64>.Iterator?
        private var scattered: Set<ObjectKey>.Iterator?

        fileprivate init(_ storage: Storage) {
            switch storage {
            case .runs(let ranges):
                runs = ranges.makeIterator()
            case .scattered(let set):
                runs = [].makeIterator()
                scattered = set.makeIterator()
            }
        }

        package mutating func next() -> ObjectKey? {
            if scattered != nil { return scattered!.next() }
            while true {
                if let raw = run?.next() { return ObjectKey(raw) }
                guard let range = runs.next() else { return nil }
                run = range.makeIterator()
            }
        }
    }

    /// The keys: ascending while kept as runs, in no particular order once scattered (a notifier
    /// merging a bulk insert's 100,000 keys iterates them without a closure call per key).
    package func makeIterator() -> Iterator { Iterator(storage) }

    package var underestimatedCount: Int { count }

    package static func == (lhs: ObjectKeySet, rhs: ObjectKeySet) -> Bool {
        guard lhs.count == rhs.count else { return false }
        switch (lhs.storage, rhs.storage) {
        case (.runs(let left), .runs(let right)): return left == right
        case (.scattered(let left), .scattered(let right)): return left == right
        default: return lhs.allSatisfy(rhs.contains)
        }
    }

    package var description: String { "[" + sorted().map(\.description).joined(separator: ", ") + "]" }

    // MARK: - Runs

    private static func keys(of runs: [ClosedRange<Int64>]) -> some Sequence<ObjectKey> {
        runs.lazy.map { $0.lazy.map(ObjectKey.init) }.joined()
    }

    /// The index of the first run whose upper bound is `>= key` (runs.count when none).
    private static func firstRun(endingAtOrAfter key: Int64, in runs: [ClosedRange<Int64>]) -> Int {
        var low = 0, high = runs.count
        while low < high {
            let middle = (low + high) / 2
            if runs[middle].upperBound < key { low = middle + 1 } else { high = middle }
        }
        return low
    }

    private static func insert(_ key: Int64, into runs: inout [ClosedRange<Int64>]) -> Bool {
        // The common case first: the key right after the last run, or past it.
        if let last = runs.last, key > last.upperBound {
            if key == last.upperBound + 1 { runs[runs.count - 1] = last.lowerBound ... key } else { runs.append(key ... key) }
            return true
        }
        let index = firstRun(endingAtOrAfter: key, in: runs)
        if index < runs.count && runs[index].contains(key) { return false }
        // `key` lies before runs[index] (if any) and after runs[index - 1] (if any).
        // No overflow: `key` is above runs[index - 1] and below runs[index], so it is neither
        // Int64.min here nor Int64.max there.
        let joinsPrevious = index > 0 && runs[index - 1].upperBound == key - 1
        let joinsNext = index < runs.count && runs[index].lowerBound == key + 1
        switch (joinsPrevious, joinsNext) {
        case (true, true):
            runs[index - 1] = runs[index - 1].lowerBound ... runs[index].upperBound
            runs.remove(at: index)
        case (true, false):
            runs[index - 1] = runs[index - 1].lowerBound ... key
        case (false, true):
            runs[index] = key ... runs[index].upperBound
        case (false, false):
            runs.insert(key ... key, at: index)
        }
        return true
    }

    private static func remove(_ key: Int64, from runs: inout [ClosedRange<Int64>]) -> Bool {
        let index = firstRun(endingAtOrAfter: key, in: runs)
        guard index < runs.count, runs[index].contains(key) else { return false }
        let run = runs[index]
        switch (run.lowerBound == key, run.upperBound == key) {
        case (true, true): runs.remove(at: index)
        case (true, false): runs[index] = key + 1 ... run.upperBound
        case (false, true): runs[index] = run.lowerBound ... key - 1
        case (false, false):
            runs[index] = run.lowerBound ... key - 1
            runs.insert(key + 1 ... run.upperBound, at: index + 1)
        }
        return true
    }
}
