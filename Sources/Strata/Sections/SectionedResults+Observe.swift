import Dispatch
import Foundation

/// A change to a ``SectionedResults`` or a ``ResultsSection``, as Realm Swift's
/// `SectionedResultsChange`.
///
/// Deletions are index paths in the old layout, insertions in the new one, modifications in
/// the old one (a modified row that moved between or within sections is a deletion plus an
/// insertion); `sectionsToDelete` are old section indices whose key is gone, `sectionsToInsert`
/// new section indices whose key is new. Rows of a deleted section are not listed as deletions.
public enum SectionedResultsChange<Collection> {
    /// The collection, first delivered.
    case initial(Collection)
    /// What changed since the last delivery, and the collection now.
    case update(Collection, deletions: [IndexPath], insertions: [IndexPath], modifications: [IndexPath],
                sectionsToInsert: IndexSet, sectionsToDelete: IndexSet)
}

extension SectionedResults {
    /// Registers a block called with the sections' changes, as Realm Swift's
    /// `SectionedResults.observe(keyPaths:on:_:)`: `.initial`, then one `.update` per change.
    ///
    /// The change set is derived from the underlying results' incremental change set: the
    /// section key is read again only for inserted and modified rows. A key-path section key is
    /// always watched, whatever `keyPaths` says, so the sections stay right.
    ///
    /// - Parameters:
    ///   - keyPaths: Property paths whose changes count as modifications (nil: all).
    ///   - queue: Must be nil: delivery on another queue is not supported here yet.
    ///   - block: Called on the Realm's scheduler with each change.
    /// - Returns: A token; keep it for as long as you want notifications.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (SectionedResultsChange<SectionedResults>) -> Void) -> NotificationToken {
        observeLayout(keyPaths: keyPaths, on: queue) { change, _, _ in
            switch change {
            case nil:
                block(.initial(self))
            case let change?:
                block(.update(self, deletions: change.deletions, insertions: change.insertions,
                              modifications: change.modifications, sectionsToInsert: change.sectionsToInsert,
                              sectionsToDelete: change.sectionsToDelete))
            }
        }
    }

    /// Observes the underlying results and keeps the layout up to date; `handle` gets nil for
    /// the initial delivery, then each section change with the layouts before and after it.
    func observeLayout(keyPaths: [String]?, on queue: DispatchQueue?,
                       _ handle: @escaping (SectionChange?, SectionLayout<Key>?, SectionLayout<Key>) -> Void)
        -> NotificationToken {
        precondition(queue == nil, "observe(on: queue) is not supported for sectioned results yet: observe the underlying "
                     + "Results or object on the queue instead")
        var watched = keyPaths
        if let keyPathName, var paths = watched, !paths.contains(keyPathName) {
            paths.append(keyPathName)
            watched = paths
        }
        var current: SectionLayout<Key>?
        let (sectionKey, cache, owner) = (self.sectionKey, self.cache, results.owner)
        return results.observe(keyPaths: watched, on: queue) { change in
            switch change {
            case .initial(let results):
                let layout = SectionLayout(keys: results.map(sectionKey))
                current = layout
                cache.store(layout, at: owner.readGeneration)
                handle(nil, nil, layout)
            case .update(let results, let deletions, let insertions, let modifications):
                guard let before = current else { return }
                let indexChange = CollectionIndexChange(deletions: deletions, insertions: insertions,
                                                        modifications: modifications)
                let (after, sectionChange) = before.applying(indexChange) { sectionKey(results[$0]) }
                current = after
                cache.store(after, at: owner.readGeneration)
                handle(sectionChange, before, after)
            case .error:
                break
            }
        }
    }
}

extension ResultsSection {
    /// Registers a block called with this section's changes: `.initial`, then an `.update`
    /// only when rows with this section's key were deleted, inserted or modified, with the
    /// index paths of those rows (old layout for deletions and modifications, new layout for
    /// insertions).
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (SectionedResultsChange<ResultsSection>) -> Void) -> NotificationToken {
        let key = self.key
        return parent.observeLayout(keyPaths: keyPaths, on: queue) { change, before, after in
            guard let change, let before else { return block(.initial(self)) }
            let own = change.rows(withKey: key, before: before, after: after)
            guard !own.isEmpty else { return }
            block(.update(self, deletions: own.deletions, insertions: own.insertions, modifications: own.modifications,
                          sectionsToInsert: IndexSet(), sectionsToDelete: IndexSet()))
        }
    }
}

extension SectionChange {
    /// The rows of the section keyed `key`, including deletions of a section that went away.
    func rows<Key: Hashable>(withKey key: Key, before: SectionLayout<Key>, after: SectionLayout<Key>) -> SectionChange {
        let oldSection = before.section(of: key)
        let newSection = after.section(of: key)
        var own = filtered(oldSection: oldSection, newSection: newSection)
        if let oldSection, sectionsToDelete.contains(oldSection) {
            own.deletions = (0..<before.count(inSection: oldSection)).map { IndexPath(item: $0, section: oldSection) }
        }
        return own
    }
}
