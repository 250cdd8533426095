import Foundation

/// How the rows of a sorted collection fall into sections: each row's key, and the sections
/// in the order their keys first appear.
///
/// A layout is updated from the underlying collection's change set (``applying(_:key:)``): the
/// key function runs only for inserted and modified rows, the other rows keep their cached
/// keys, so no object is read again.
struct SectionLayout<Key: Hashable> {
    /// The section key of each row, in the collection's order.
    private(set) var keys: [Key]
    /// The keys of the sections, in order of first appearance.
    private(set) var sectionKeys: [Key] = []
    /// The section index of each key.
    private(set) var sectionOfKey: [Key: Int] = [:]
    /// The rows (collection indices) of each section, ascending.
    private(set) var members: [[Int]] = []
    /// The position of each row within its section.
    private var positions: [Int] = []

    init(keys: [Key]) {
        self.keys = keys
        group()
    }

    private mutating func group() {
        sectionKeys = []
        sectionOfKey = [:]
        members = []
        positions = Array(repeating: 0, count: keys.count)
        for (row, key) in keys.enumerated() {
            let section: Int
            if let known = sectionOfKey[key] {
                section = known
            } else {
                section = sectionKeys.count
                sectionOfKey[key] = section
                sectionKeys.append(key)
                members.append([])
            }
            positions[row] = members[section].count
            members[section].append(row)
        }
    }

    /// The index path of the row at `row` in the collection.
    func path(ofRow row: Int) -> IndexPath {
        IndexPath(item: positions[row], section: sectionOfKey[keys[row]]!)
    }

    /// The layout after the collection changed, and what changed in section terms
    /// (`../shared/REALM-SEMANTICS.md` §2.16).
    ///
    /// - Parameters:
    ///   - change: The collection's change: deletions and modifications as old indices,
    ///     insertions as new ones, each ascending.
    ///   - key: The section key of the row at a new index.
    func applying(_ change: CollectionIndexChange, key: (Int) -> Key) -> (SectionLayout, SectionChange) {
        let newCount = keys.count - change.deletions.count + change.insertions.count
        // Old index → new index for the rows that stay.
        var newIndexOfOld = [Int](repeating: -1, count: keys.count)
        var newKeys: [Key] = []
        newKeys.reserveCapacity(newCount)
        var deletions = change.deletions[...]
        var insertions = change.insertions[...]
        var old = 0
        for new in 0..<newCount {
            if insertions.first == new {
                insertions.removeFirst()
                newKeys.append(key(new))
                continue
            }
            while deletions.first == old {
                deletions.removeFirst()
                old += 1
            }
            newIndexOfOld[old] = new
            newKeys.append(keys[old])
            old += 1
        }
        for row in change.modifications where newIndexOfOld[row] >= 0 {
            newKeys[newIndexOfOld[row]] = key(newIndexOfOld[row])
        }
        let next = SectionLayout(keys: newKeys)
        return (next, sectionChange(to: next, change, newIndexOfOld))
    }

    private func sectionChange(to next: SectionLayout, _ change: CollectionIndexChange,
                               _ newIndexOfOld: [Int]) -> SectionChange {
        var result = SectionChange()
        for (section, key) in sectionKeys.enumerated() where next.sectionOfKey[key] == nil {
            result.sectionsToDelete.insert(section)
        }
        for (section, key) in next.sectionKeys.enumerated() where sectionOfKey[key] == nil {
            result.sectionsToInsert.insert(section)
        }
        func delete(_ row: Int) {
            let path = self.path(ofRow: row)
            if !result.sectionsToDelete.contains(path.section) { result.deletions.append(path) }
        }
        for row in change.deletions { delete(row) }
        for row in change.insertions { result.insertions.append(next.path(ofRow: row)) }
        for row in change.modifications {
            let new = newIndexOfOld[row]
            guard new >= 0 else { continue }
            let before = path(ofRow: row)
            let after = next.path(ofRow: new)
            if keys[row] == next.keys[new], before.item == after.item {
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

/// A collection's change as indices: deletions and modifications in the old collection,
/// insertions in the new one, each ascending.
struct CollectionIndexChange {
    var deletions: [Int]
    var insertions: [Int]
    var modifications: [Int]
}

/// What changed in a sectioned collection, as index paths and section indices.
struct SectionChange: Equatable {
    var deletions: [IndexPath] = []
    var insertions: [IndexPath] = []
    var modifications: [IndexPath] = []
    var sectionsToInsert = IndexSet()
    var sectionsToDelete = IndexSet()

    /// The part of the change inside the section at `section` (old layout for deletions and
    /// modifications, new layout for insertions).
    func filtered(oldSection: Int?, newSection: Int?) -> SectionChange {
        SectionChange(deletions: deletions.filter { $0.section == oldSection },
                      insertions: insertions.filter { $0.section == newSection },
                      modifications: modifications.filter { $0.section == oldSection })
    }

    var isEmpty: Bool {
        deletions.isEmpty && insertions.isEmpty && modifications.isEmpty && sectionsToInsert.isEmpty
            && sectionsToDelete.isEmpty
    }
}
