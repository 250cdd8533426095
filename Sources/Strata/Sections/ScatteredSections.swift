import Foundation

/// Sections whose rows may interleave (a key function whose sections are not runs of the sort
/// order): each row's key is kept, and the sections are regrouped after each change in one
/// linear pass over those keys (no object is read again; the key function runs only for
/// inserted and modified rows).
struct ScatteredSections<Key: Hashable> {
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

    /// The keys after the collection changed (`newIndex` maps surviving old rows).
    func keys(after change: CollectionIndexChange, newIndexOfOld: [Int], key: (Int) -> Key) -> [Key] {
        let newCount = keys.count - change.deletions.count + change.insertions.count
        var newKeys = [Key?](repeating: nil, count: newCount)
        for (old, new) in newIndexOfOld.enumerated() where new >= 0 { newKeys[new] = keys[old] }
        for row in change.insertions { newKeys[row] = key(row) }
        for row in change.modifications where newIndexOfOld[row] >= 0 { newKeys[newIndexOfOld[row]] = key(newIndexOfOld[row]) }
        return newKeys.map { $0! }
    }
}

