import Foundation

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
