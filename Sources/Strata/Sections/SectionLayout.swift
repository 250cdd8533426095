import Foundation

/// How the rows of a sorted collection fall into sections, in the order their keys first
/// appear: runs when rows with one key are adjacent (sectioning by the first sort key, the
/// usual case), else scattered rows.
///
/// ``applying(_:key:)`` updates it from the underlying collection's change set; the key
/// function runs only for inserted and modified rows. For runs the cost grows with the change,
/// not with the collection; scattered sections are regrouped in a linear pass over cached keys.
enum SectionLayout<Key: Hashable> {
    case runs(RunSections<Key>)
    case scattered(ScatteredSections<Key>)

    init(keys: [Key]) {
        if let runs = RunSections(keys: keys) {
            self = .runs(runs)
        } else {
            self = .scattered(ScatteredSections(keys: keys))
        }
    }

    /// The keys of the sections, in order.
    var sectionKeys: [Key] {
        switch self {
        case .runs(let runs): runs.sectionKeys
        case .scattered(let scattered): scattered.sectionKeys
        }
    }

    /// The section index of `key`, if some row has it.
    func section(of key: Key) -> Int? {
        switch self {
        case .runs(let runs): runs.sectionOfKey[key]
        case .scattered(let scattered): scattered.sectionOfKey[key]
        }
    }

    /// The rows of the section at `section`.
    func count(inSection section: Int) -> Int {
        switch self {
        case .runs(let runs): runs.counts[section]
        case .scattered(let scattered): scattered.members[section].count
        }
    }

    /// The collection index of a section's row.
    func row(section: Int, item: Int) -> Int {
        switch self {
        case .runs(let runs): runs.starts[section] + item
        case .scattered(let scattered): scattered.members[section][item]
        }
    }

    /// The index path of a collection row.
    func path(ofRow row: Int) -> IndexPath {
        switch self {
        case .runs(let runs):
            let section = runs.section(ofRow: row)
            return IndexPath(item: row - runs.starts[section], section: section)
        case .scattered(let scattered):
            return scattered.path(ofRow: row)
        }
    }

    /// The section key of a collection row.
    func key(ofRow row: Int) -> Key {
        switch self {
        case .runs(let runs): runs.sectionKeys[runs.section(ofRow: row)]
        case .scattered(let scattered): scattered.keys[row]
        }
    }

    /// The row count.
    var rowCount: Int {
        switch self {
        case .runs(let runs): runs.rowCount
        case .scattered(let scattered): scattered.keys.count
        }
    }

    /// The layout after the collection changed, and what changed in section terms, by Realm's
    /// rules: sections are numbered in order of first appearance; a section whose key went away
    /// is deleted (at its old index) and one whose key is new is inserted (at its new index);
    /// rows of a deleted section are not also listed as deleted; a modified row stays a
    /// modification only at the same row of the same key's section in both layouts, and is
    /// otherwise a deletion at its old path and an insertion at its new one.
    ///
    /// - Parameters:
    ///   - change: The collection's change: deletions and modifications as old indices,
    ///     insertions as new ones, each ascending.
    ///   - key: The section key of the row at a new index.
    func applying(_ change: CollectionIndexChange, key: (Int) -> Key) -> (SectionLayout, SectionChange) {
        let mapping = IndexMapping(change)
        var cache: [Int: Key] = [:]
        let cachedKey = { (row: Int) -> Key in
            if let known = cache[row] { return known }
            let value = key(row)
            cache[row] = value
            return value
        }
        let next: SectionLayout
        if case .runs(let runs) = self, let updated = runs.applying(change, newIndex: mapping.newIndex, key: cachedKey) {
            next = .runs(updated)
        } else {
            let scattered = ScatteredSections(keys: (0..<rowCount).map(key(ofRow:)))
            let newIndexOfOld = (0..<rowCount).map { mapping.isDeleted($0) ? -1 : mapping.newIndex($0) }
            next = SectionLayout(keys: scattered.keys(after: change, newIndexOfOld: newIndexOfOld, key: cachedKey))
        }
        return (next, sectionChange(to: next, change, mapping))
    }

    private func sectionChange(to next: SectionLayout, _ change: CollectionIndexChange,
                               _ mapping: IndexMapping) -> SectionChange {
        var result = SectionChange()
        for (section, key) in sectionKeys.enumerated() where next.section(of: key) == nil {
            result.sectionsToDelete.insert(section)
        }
        for (section, key) in next.sectionKeys.enumerated() where self.section(of: key) == nil {
            result.sectionsToInsert.insert(section)
        }
        func delete(_ row: Int) {
            let path = self.path(ofRow: row)
            if !result.sectionsToDelete.contains(path.section) { result.deletions.append(path) }
        }
        for row in change.deletions { delete(row) }
        for row in change.insertions { result.insertions.append(next.path(ofRow: row)) }
        for row in change.modifications where !mapping.isDeleted(row) {
            let new = mapping.newIndex(row)
            let before = path(ofRow: row)
            let after = next.path(ofRow: new)
            if key(ofRow: row) == next.key(ofRow: new), before.item == after.item {
                result.modifications.append(before)
            } else {
                delete(row)
                result.insertions.append(after)
            }
        }
        result.deletions.sort()
        result.insertions.sort()
        result.modifications.sort()
        return result
    }
}

/// Maps old collection indices to new ones for a change, by binary search: O(log changes).
struct IndexMapping {
    private let deletions: [Int]
    /// `insertions[i] - i`, nondecreasing: how many insertions land before a surviving row.
    private let shiftedInsertions: [Int]
    private let deleted: Set<Int>

    init(_ change: CollectionIndexChange) {
        deletions = change.deletions
        shiftedInsertions = change.insertions.enumerated().map { $1 - $0 }
        deleted = Set(change.deletions)
    }

    func isDeleted(_ row: Int) -> Bool { deleted.contains(row) }

    /// The new index of the surviving old row `row`.
    func newIndex(_ row: Int) -> Int {
        let candidate = row - Self.count(deletions) { $0 < row }
        return candidate + Self.count(shiftedInsertions) { $0 <= candidate }
    }

    /// How many leading elements of the ascending `values` satisfy `isBefore`.
    private static func count(_ values: [Int], where isBefore: (Int) -> Bool) -> Int {
        var low = 0
        var high = values.count
        while low < high {
            let middle = (low + high) / 2
            if isBefore(values[middle]) { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
