import Foundation
@testable import Strata
import StrataTestSupport
import Testing

final class SectionContact: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
    @Persisted var group: String
}

func describe<C>(_ change: SectionedResultsChange<C>) -> String {
    func paths(_ paths: [IndexPath]) -> String { "[" + paths.map { "\($0.section).\($0.item)" }.joined(separator: " ") + "]" }
    switch change {
    case .initial: return "initial"
    case .update(_, let deletions, let insertions, let modifications, let sectionsToInsert, let sectionsToDelete):
        return "d\(paths(deletions)) i\(paths(insertions)) m\(paths(modifications)) si\(Array(sectionsToInsert)) sd\(Array(sectionsToDelete))"
    }
}

@Suite("Sectioned results")
struct SectionedResultsTests {
    private func layoutChange(_ old: [String], _ change: CollectionIndexChange, _ new: [String]) -> String {
        let (next, sections) = SectionLayout(keys: old).applying(change) { new[$0] }
        #expect((0..<next.rowCount).map(next.key(ofRow:)) == new)
        return describe(SectionedResultsChange<Int>.update(0, deletions: sections.deletions, insertions: sections.insertions,
                                                           modifications: sections.modifications,
                                                           sectionsToInsert: sections.sectionsToInsert,
                                                           sectionsToDelete: sections.sectionsToDelete))
    }

    @Test("section change sets: new and vanished sections, rows moving between and within sections, in-place modifications")
    func layoutChanges() {
        // a a b | insert a b at 1: sections keep their index.
        #expect(layoutChange(["a", "a", "b"], .init(deletions: [], insertions: [1], modifications: []), ["a", "a", "a", "b"])
                == "d[] i[0.1] m[] si[] sd[]")
        // A new key appears in the middle: section inserted at 1.
        #expect(layoutChange(["a", "c"], .init(deletions: [], insertions: [1], modifications: []), ["a", "b", "c"])
                == "d[] i[1.0] m[] si[1] sd[]")
        // The only row of section 0 goes: the section is deleted, its row is not listed.
        #expect(layoutChange(["a", "b", "b"], .init(deletions: [0], insertions: [], modifications: []), ["b", "b"])
                == "d[] i[] m[] si[] sd[0]")
        // A modification that changes the row's key: deletion in the old section, insertion in
        // the new one, and the new section.
        #expect(layoutChange(["a", "b", "b"], .init(deletions: [], insertions: [], modifications: [2]), ["a", "b", "c"])
                == "d[1.1] i[2.0] m[] si[2] sd[]")
        // A modification in place stays a modification (old path).
        #expect(layoutChange(["a", "b", "b"], .init(deletions: [], insertions: [], modifications: [1]), ["a", "b", "b"])
                == "d[] i[] m[1.0] si[] sd[]")
        // A modified row whose position inside its section changed (a row before it went).
        #expect(layoutChange(["a", "a", "a"], .init(deletions: [0], insertions: [], modifications: [2]), ["a", "a"])
                == "d[0.0 0.2] i[0.1] m[] si[] sd[]")
        // Sections follow first appearance when keys are not contiguous.
        let layout = SectionLayout(keys: ["b", "a", "b", "c", "a"])
        guard case .scattered = layout else { Issue.record("interleaved keys are not runs"); return }
        #expect(layout.sectionKeys == ["b", "a", "c"])
        #expect((0..<3).map { section in (0..<layout.count(inSection: section)).map { layout.row(section: section, item: $0) } }
                == [[0, 2], [1, 4], [3]])
        // Runs stay runs through a change, and turn scattered when a row lands inside another run.
        let runs = SectionLayout(keys: ["a", "a", "b"])
        guard case .runs = runs else { Issue.record("adjacent keys are runs"); return }
        let (kept, _) = runs.applying(.init(deletions: [], insertions: [3], modifications: [])) { _ in "c" }
        guard case .runs = kept else { Issue.record("appending a new key keeps runs"); return }
        let (split, change) = runs.applying(.init(deletions: [], insertions: [1], modifications: [])) { _ in "b" }
        guard case .scattered = split else { Issue.record("a b inside the a run scatters"); return }
        #expect(split.sectionKeys == ["a", "b"] && change.insertions == [IndexPath(item: 0, section: 1)])
    }

    @Test("randomized: an updated layout equals the layout built from scratch (runs and scattered, seeded)")
    func randomizedLayouts() {
        let seed = ProcessInfo.processInfo.environment["STRATA_SECTIONS_SEED"].flatMap(UInt64.init) ?? 7
        print("randomized section layouts, seed \(seed) (STRATA_SECTIONS_SEED)")
        var random = SeededRandom(seed: seed)
        func next(_ bound: Int) -> Int { Int(random.next() % UInt64(bound)) }
        for round in 0..<400 {
            let sorted = round % 2 == 0
            var old: [Int] = (0..<next(30)).map { _ in next(6) }
            if sorted { old.sort() }
            // Survivors keep their order; some change key; new rows are inserted anywhere.
            let deletions: [Int] = old.indices.filter { _ in next(4) == 0 }
            let survivors: [Int] = old.indices.filter { !deletions.contains($0) }
            var rows: [(old: Int?, key: Int)] = survivors.map { ($0, old[$0]) }
            var modifications: [Int] = []
            for index in rows.indices where next(5) == 0 {
                // Sorted: a new key between the neighbours' keys, so the row stays in place (the
                // results report a row that moves as a deletion plus an insertion).
                let low = sorted && index > 0 ? rows[index - 1].key : 0
                let high = sorted && index + 1 < rows.count ? rows[index + 1].key : 5
                rows[index].key = low + next(max(1, high - low + 1))
                modifications.append(rows[index].old!)
            }
            for _ in 0..<next(5) {
                let key = next(6)
                let position = sorted ? (rows.firstIndex { $0.key > key } ?? rows.count) : next(rows.count + 1)
                rows.insert((nil, key), at: position)
            }
            let keysInOrder: [Int] = rows.map { $0.key }
            if sorted { #expect(keysInOrder == keysInOrder.sorted()) }
            let insertions: [Int] = rows.indices.filter { rows[$0].old == nil }
            let change = CollectionIndexChange(deletions: deletions, insertions: insertions, modifications: modifications)
            let (updated, _) = SectionLayout<Int>(keys: old).applying(change) { keysInOrder[$0] }
            let fresh = SectionLayout<Int>(keys: keysInOrder)
            #expect(updated.sectionKeys == fresh.sectionKeys, "round \(round): \(old) → \(keysInOrder)")
            let updatedPaths = (0..<fresh.rowCount).map { updated.path(ofRow: $0) }
            let freshPaths = (0..<fresh.rowCount).map { fresh.path(ofRow: $0) }
            #expect(updatedPaths == freshPaths, "round \(round): \(old) → \(keysInOrder)")
        }
    }

    @Test("contents: keys in order of first appearance, counts, index paths, a block key")
    func contents() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString,
                                                                 objectTypes: [SectionContact.self]))
        try realm.write {
            for (id, name, group) in [(1, "ann", "a"), (2, "cat", "b"), (3, "bob", "b"), (4, "dan", "c")] {
                realm.add(SectionContact(value: ["id": id, "name": name, "group": group]))
            }
        }
        let contacts = realm.objects(SectionContact.self)
        let byGroup = contacts.sectioned(by: \.group, sortDescriptors: [SortDescriptor(keyPath: "group"),
                                                                        SortDescriptor(keyPath: "name")])
        #expect(byGroup.allKeys == ["a", "b", "c"])
        #expect(byGroup.map(\.count) == [1, 2, 1])
        #expect(byGroup[1].map(\.name) == ["bob", "cat"] && byGroup[1].key == "b" && byGroup[1].id == "b")
        #expect(byGroup[IndexPath(item: 1, section: 1)].name == "cat")
        // Equality is identity, as in Realm Swift: the same sectioned results and their sections.
        let copy = byGroup
        #expect(copy == byGroup && byGroup[1] == copy[1] && byGroup[0] != byGroup[1])
        #expect(contacts.sectioned(by: \.group, sortDescriptors: [SortDescriptor(keyPath: "group")]) != byGroup)
        let descending = contacts.sectioned(by: \.group, ascending: false)
        #expect(descending.allKeys == ["c", "b", "a"])
        let byLength = contacts.sectioned(by: { $0.name.count + $0.id % 2 }, sortDescriptors: [SortDescriptor(keyPath: "id")])
        #expect(byLength.allKeys == [4, 3])
        #expect(byLength.map { $0.map(\.id) } == [[1, 3], [2, 4]])
        // Live: a write shows at once.
        try realm.write { realm.add(SectionContact(value: ["id": 5, "name": "eve", "group": "e"])) }
        #expect(byGroup.allKeys == ["a", "b", "c", "e"])
        let frozen = byGroup.freeze()
        try realm.write { realm.deleteAll() }
        #expect(byGroup.isEmpty && frozen.allKeys == ["a", "b", "c", "e"] && frozen.isFrozen)
    }

    @Test("notifications: exact change sets as rows move between sections and sections appear and disappear")
    func notifications() throws {
        let harness = try LoopHarness()
        let configuration = Realm.Configuration(inMemoryIdentifier: UUID().uuidString, objectTypes: [SectionContact.self])
        let held = UncheckedBox<(Realm, [NotificationToken])?>(nil)
        func write(_ body: @escaping (Realm) -> Void) throws {
            try harness.run {
                let realm = try Realm(configuration: configuration)
                try realm.write { body(realm) }
            }
        }
        func contact(_ realm: Realm, _ id: Int) -> SectionContact { realm.object(ofType: SectionContact.self, forPrimaryKey: id)! }
        try harness.run {
            let realm = try Realm(configuration: configuration)
            try realm.write {
                for (id, name, group) in [(1, "ann", "a"), (2, "bob", "b"), (3, "cat", "b"), (4, "dan", "c")] {
                    realm.add(SectionContact(value: ["id": id, "name": name, "group": group]))
                }
            }
            let sections = realm.objects(SectionContact.self)
                .sectioned(by: \.group, sortDescriptors: [SortDescriptor(keyPath: "group"), SortDescriptor(keyPath: "name")])
            held.value = (realm, [
                sections.observe { harness.record("all " + describe($0)) },
                sections[1].observe(keyPaths: ["name"]) { harness.record("b " + describe($0)) },
            ])
        }
        #expect(Set(harness.waitForEvents(2)) == ["all initial", "b initial"])
        // ann | bea bob cat | dan
        try write { $0.add(SectionContact(value: ["id": 5, "name": "bea", "group": "b"])) }
        #expect(Set(harness.waitForEvents(4).suffix(2)) == ["all d[] i[1.0] m[] si[] sd[]", "b d[] i[1.0] m[] si[] sd[]"])
        // cat moves to a new section d: ann | bea bob | dan | cat
        try write { contact($0, 3).group = "d" }
        #expect(Set(harness.waitForEvents(6).suffix(2)) == ["all d[1.2] i[3.0] m[] si[3] sd[]", "b d[1.2] i[] m[] si[] sd[]"])
        // ann goes, and with it section a: bea bob | dan | cat
        try write { $0.delete(contact($0, 1)) }
        #expect(harness.waitForEvents(7).last == "all d[] i[] m[] si[] sd[0]")
        // bob renamed in place: a modification for both observers.
        try write { contact($0, 2).name = "bobby" }
        #expect(Set(harness.waitForEvents(9).suffix(2)) == ["all d[] i[] m[0.1] si[] sd[]", "b d[] i[] m[0.1] si[] sd[]"])
        // Section b goes: its observer hears the section deleted, as in Realm: dan | cat
        try write { realm in for id in [2, 5] { realm.delete(contact(realm, id)) } }
        #expect(Set(harness.waitForEvents(11).suffix(2)) == ["all d[] i[] m[] si[] sd[0]", "b d[] i[] m[] si[] sd[0]"])
        // and comes back: its row inserted and the section inserted: bo | dan | cat
        try write { $0.add(SectionContact(value: ["id": 6, "name": "bo", "group": "b"])) }
        #expect(Set(harness.waitForEvents(13).suffix(2)) == ["all d[] i[0.0] m[] si[0] sd[]", "b d[] i[0.0] m[] si[0] sd[]"])
        #expect(harness.settledEvents().count == 13)
        harness.run {
            for token in held.value!.1 { token.invalidate() }
            held.value = nil
        }
    }
}
