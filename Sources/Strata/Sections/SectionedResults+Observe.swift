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
    ///   - queue: A serial queue to deliver on, or nil for this Realm's own scheduler. On a queue
    ///     the block gets sections of the same results resolved on that queue (read them there),
    ///     and the section key is computed there.
    ///   - block: Called with each change.
    /// - Returns: A token; keep it for as long as you want notifications.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (SectionedResultsChange<SectionedResults>) -> Void) -> NotificationToken {
        observeLayout(keyPaths: keyPaths, on: queue) { sections, change, _, _ in
            switch change {
            case nil:
                block(.initial(sections))
            case let change?:
                block(.update(sections, deletions: change.deletions, insertions: change.insertions,
                              modifications: change.modifications, sectionsToInsert: change.sectionsToInsert,
                              sectionsToDelete: change.sectionsToDelete))
            }
        }
    }

    /// Observes the underlying results and keeps the layout up to date; `handle` gets the
    /// sections being delivered (self, or the same sections on `queue`), nil for the initial
    /// delivery, then each section change with the layouts before and after it.
    func observeLayout(
        keyPaths: [String]?, on queue: DispatchQueue?,
        _ handle: @escaping (SectionedResults, SectionChange?, SectionLayout<Key>?, SectionLayout<Key>) -> Void
    ) -> NotificationToken {
        var watched = keyPaths
        if let keyPathName, var paths = watched, !paths.contains(keyPathName) {
            paths.append(keyPathName)
            watched = paths
        }
        var current: SectionLayout<Key>?
        var delivered: SectionedResults?
        let (sectionKey, keyPathName) = (self.sectionKey, self.keyPathName)
        // Without a queue the block gets these sections; on a queue, sections of the results the
        // queue's Realm resolved, made once, at the first delivery, on the queue.
        let local = queue == nil ? self : nil
        return results.observe(keyPaths: watched, on: queue) { change in
            switch change {
            case .initial(let results):
                let sections = local ?? SectionedResults(results: results, keyPathName: keyPathName,
                                                         sectionKey: sectionKey)
                delivered = sections
                let layout = SectionLayout(keys: results.map(sectionKey))
                current = layout
                sections.cache.store(layout, at: results.owner.readGeneration)
                handle(sections, nil, nil, layout)
            case .update(let results, let deletions, let insertions, let modifications):
                guard let before = current, let sections = delivered else { return }
                let indexChange = CollectionIndexChange(deletions: deletions, insertions: insertions,
                                                        modifications: modifications)
                let (after, sectionChange) = before.applying(indexChange) { sectionKey(results[$0]) }
                current = after
                sections.cache.store(after, at: results.owner.readGeneration)
                handle(sections, sectionChange, before, after)
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
    /// insertions). As in Realm, a section that goes away is reported as its index in
    /// `sectionsToDelete` (no row deletions), and one that comes back as its index in
    /// `sectionsToInsert` with its rows as insertions.
    ///
    /// - Parameters:
    ///   - keyPaths: Property paths whose changes count as modifications (nil: all).
    ///   - queue: A serial queue to deliver on, or nil for this Realm's own scheduler. On a queue
    ///     the block gets this section of the sections resolved on that queue.
    ///   - block: Called with each change.
    /// - Returns: A token; keep it for as long as you want notifications.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (SectionedResultsChange<ResultsSection>) -> Void) -> NotificationToken {
        let key = self.key
        let local = queue == nil ? self : nil
        return parent.observeLayout(keyPaths: keyPaths, on: queue) { sections, change, before, after in
            let section = local ?? ResultsSection(parent: sections, key: key)
            guard let change, let before else { return block(.initial(section)) }
            let own = change.rows(withKey: key, before: before, after: after)
            guard !own.isEmpty else { return }
            block(.update(section, deletions: own.deletions, insertions: own.insertions,
                          modifications: own.modifications, sectionsToInsert: own.sectionsToInsert,
                          sectionsToDelete: own.sectionsToDelete))
        }
    }
}

extension SectionChange {
    /// The change of the section keyed `key`, as Realm reports it to that section's observers:
    /// its rows' changes; a section that went away as its index in `sectionsToDelete` (and no
    /// row deletions); a section that (re)appeared as its index in `sectionsToInsert`, with its
    /// rows as insertions.
    func rows<Key: Hashable>(withKey key: Key, before: SectionLayout<Key>, after: SectionLayout<Key>) -> SectionChange {
        let oldSection = before.section(of: key)
        let newSection = after.section(of: key)
        var own = filtered(oldSection: oldSection, newSection: newSection)
        if let oldSection, sectionsToDelete.contains(oldSection) {
            own.deletions = []
            own.modifications = []
            own.sectionsToDelete = [oldSection]
        }
        if let newSection, sectionsToInsert.contains(newSection) { own.sectionsToInsert = [newSection] }
        return own
    }
}
