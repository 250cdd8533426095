import Foundation
import StrataSupport

/// A sorted `Results` grouped into sections by a key, as Realm Swift's `SectionedResults`:
/// live like `Results`, with sections in the order their keys first appear in the sorted
/// results.
///
/// ```swift
/// let byInitial = realm.objects(Dog.self).sectioned(by: { String($0.name.prefix(1)) },
///                                                  sortDescriptors: [SortDescriptor(keyPath: "name")])
/// for section in byInitial { print(section.key, section.map(\.name)) }
/// let first = byInitial[IndexPath(item: 0, section: 0)]
/// ```
///
/// Two values are `==` when they are the same sectioned results (made by the same `sectioned`
/// call, or copies of it), as Realm Swift compares them.
public struct SectionedResults<Key: _Persistable & Hashable, SectionElement: RealmCollectionValue>:
    RandomAccessCollection, CustomStringConvertible, Equatable {
    /// The sorted results the sections are made of.
    let results: Results<SectionElement>
    /// The section key of an element.
    let sectionKey: (SectionElement) -> Key
    /// The property path of the key, when it is a key path (added to observers' key paths).
    let keyPathName: String?
    let cache = SectionLayoutCache<Key>()

    init(results: Results<SectionElement>, keyPathName: String?, sectionKey: @escaping (SectionElement) -> Key) {
        self.results = results
        self.keyPathName = keyPathName
        self.sectionKey = sectionKey
    }

    /// The layout at the Realm's current version, computed at most once per version.
    var layout: SectionLayout<Key> {
        results.owner.verifyThread()
        if results.owner.isFrozen { return cache.frozenLayout { SectionLayout(keys: results.map(sectionKey)) } }
        let generation = results.owner.readGeneration
        if let cached = cache.layout, cache.generation == generation { return cached }
        let layout = SectionLayout(keys: results.map(sectionKey))
        cache.store(layout, at: generation)
        return layout
    }

    public var startIndex: Int { 0 }
    /// The number of sections.
    public var endIndex: Int { layout.sectionKeys.count }

    /// The section at `position`.
    public subscript(position: Int) -> ResultsSection<Key, SectionElement> {
        let keys = layout.sectionKeys
        precondition(keys.indices.contains(position), "Index \(position) is out of bounds (must be less than \(keys.count)).")
        return ResultsSection(parent: self, key: keys[position])
    }

    /// The element at `indexPath` (`section`, `item`).
    public subscript(indexPath: IndexPath) -> SectionElement {
        results[layout.row(section: indexPath.section, item: indexPath.item)]
    }

    /// The section keys, in section order.
    public var allKeys: [Key] { layout.sectionKeys }

    /// The Realm of the results.
    public var realm: Realm? { results.realm }
    /// Whether the results can no longer be read.
    public var isInvalidated: Bool { results.isInvalidated }
    /// Whether the sections are frozen (made from frozen results).
    public var isFrozen: Bool { results.isFrozen }

    /// A frozen copy at the Realm's current version, readable from any thread.
    public func freeze() -> SectionedResults {
        SectionedResults(results: results.freeze(), keyPathName: keyPathName, sectionKey: sectionKey)
    }

    /// The live sections at this thread's Realm's current version (self when live).
    public func thaw() -> SectionedResults? {
        results.thaw().map { SectionedResults(results: $0, keyPathName: keyPathName, sectionKey: sectionKey) }
    }

    public var description: String {
        "SectionedResults<\(Key.self), \(SectionElement.self)> (\(count) sections)"
    }

    /// Whether both are the same sectioned results (not whether their sections are equal).
    public static func == (lhs: SectionedResults, rhs: SectionedResults) -> Bool {
        lhs.cache === rhs.cache
    }
}

/// The rows of one section of a ``SectionedResults``, as Realm Swift's `ResultsSection`.
///
/// A section is found by its key: after a change it shows the rows that have the key now (none
/// when no row has it any more).
public struct ResultsSection<Key: _Persistable & Hashable, Element: RealmCollectionValue>:
    RandomAccessCollection, Identifiable, CustomStringConvertible, Equatable {
    let parent: SectionedResults<Key, Element>
    /// The section's key.
    public let key: Key

    /// The section's key, as its identity.
    public var id: Key { key }

    public var startIndex: Int { 0 }
    /// The number of rows in the section (0 when no row has its key any more).
    public var endIndex: Int {
        let layout = parent.layout
        return layout.section(of: key).map(layout.count(inSection:)) ?? 0
    }

    /// The row at `position` within the section.
    public subscript(position: Int) -> Element {
        let layout = parent.layout
        let count = layout.section(of: key).map(layout.count(inSection:)) ?? 0
        precondition(position >= 0 && position < count, "Index \(position) is out of bounds (must be less than \(count)).")
        return parent.results[layout.row(section: layout.section(of: key)!, item: position)]
    }

    /// The Realm of the section's results.
    public var realm: Realm? { parent.realm }
    /// Whether the section is frozen.
    public var isFrozen: Bool { parent.isFrozen }

    /// A frozen copy of the section.
    public func freeze() -> ResultsSection {
        ResultsSection(parent: parent.freeze(), key: key)
    }

    /// The live section (self when live).
    public func thaw() -> ResultsSection? {
        parent.thaw().map { ResultsSection(parent: $0, key: key) }
    }

    public var description: String { "ResultsSection<\(Key.self), \(Element.self)> \(key) (\(count) rows)" }

    /// Whether both are the section of one key in the same sectioned results.
    public static func == (lhs: ResultsSection, rhs: ResultsSection) -> Bool {
        lhs.parent == rhs.parent && lhs.key == rhs.key
    }
}

/// The cached layout of a ``SectionedResults`` and the read generation it belongs to.
final class SectionLayoutCache<Key: Hashable> {
    private(set) var layout: SectionLayout<Key>?
    private(set) var generation: Realm.ReadGeneration?
    /// The layout of frozen sections, computed once under a lock (threads share them).
    private let frozen = LockedValueBox<SectionLayout<Key>?>(nil)

    func store(_ layout: SectionLayout<Key>, at generation: Realm.ReadGeneration) {
        self.layout = layout
        self.generation = generation
    }

    func frozenLayout(_ compute: () -> SectionLayout<Key>) -> SectionLayout<Key> {
        frozen.withLockedValue { layout in
            if let layout { return layout }
            let computed = compute()
            layout = computed
            return computed
        }
    }
}

extension RealmCollection where Element: ObjectBase {
    /// The elements sorted by `keyPath` and grouped into sections by its value.
    public func sectioned<Key: _Persistable & Hashable>(by keyPath: KeyPath<Element, Key>,
                                                       ascending: Bool = true) -> SectionedResults<Key, Element> {
        let name = KeyPathTracer.dottedName(of: keyPath)
        return sectioned(by: keyPath, sortDescriptors: [SortDescriptor(keyPath: name, ascending: ascending)])
    }

    /// The elements sorted by `sortDescriptors`, whose first descriptor must be `keyPath`,
    /// grouped into sections by the key path's value.
    ///
    /// Traps when the first sort descriptor is not the key path.
    public func sectioned<Key: _Persistable & Hashable>(by keyPath: KeyPath<Element, Key>,
                                                       sortDescriptors: [SortDescriptor]) -> SectionedResults<Key, Element> {
        let name = KeyPathTracer.dottedName(of: keyPath)
        precondition(sortDescriptors.first?.keyPath == name,
                     "The section key path '\(name)' must be the key path of the first sort descriptor")
        return SectionedResults(results: sorted(by: sortDescriptors), keyPathName: name) { $0[keyPath: keyPath] }
    }

    /// The elements sorted by `sortDescriptors` and grouped into sections by the key
    /// `sectionBlock` returns for each; sections come in the order their keys first appear.
    public func sectioned<Key: _Persistable & Hashable>(by sectionBlock: @escaping (Element) -> Key,
                                                       sortDescriptors: [SortDescriptor]) -> SectionedResults<Key, Element> {
        SectionedResults(results: sorted(by: sortDescriptors), keyPathName: nil, sectionKey: sectionBlock)
    }
}

extension RealmCollection {
    /// Values sorted and grouped into sections by the key `sectionBlock` returns for each, as
    /// Realm Swift's: for collections of primitives and their optionals, in generic code too.
    ///
    /// Objects have no order of their own: section them with `sectioned(by:sortDescriptors:)`
    /// or by a key path; here they trap.
    ///
    /// - Complexity: O(1) to create; O(n log n) when read.
    public func sectioned<Key: _Persistable & Hashable>(by sectionBlock: @escaping (Element) -> Key,
                                                       ascending: Bool = true) -> SectionedResults<Key, Element> {
        precondition(!(Element.self is ObjectBase.Type),
                     "Objects cannot be sorted by their own value: section \(Element.self) objects with "
                     + "sectioned(by:sortDescriptors:) or by a key path")
        let sorted = sortedByValue(ascending: ascending)
        return SectionedResults(results: sorted, keyPathName: nil, sectionKey: sectionBlock)
    }
}
