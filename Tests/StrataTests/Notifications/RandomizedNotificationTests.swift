import Foundation
@testable import Strata
import StrataTestSupport
import Testing

/// Checks every delivered change set against the collection it describes: applying the
/// deletions and insertions to the previous contents must give the new contents, and the
/// modifications must include every surviving, unmoved element whose values (to four links)
/// changed. They may include more: Realm reports an element whose linked objects were changed and
/// changed back between two deliveries, which the contents alone cannot show; exact
/// modifications are checked by the deterministic tests.
final class ChangeVerifier<C: RealmCollection> where C.Element == NoteDog {
    let name: String
    private var previous: [(id: Int, values: String)] = []
    private(set) var failures: [String] = []
    private(set) var updates = 0

    init(name: String) { self.name = name }

    private static func snapshot(_ collection: C) -> [(id: Int, values: String)] {
        collection.map { ($0.id, describe($0, depth: 4)) }
    }

    /// Everything a deep (four-link) observer sees of a dog: a change anywhere in it is a
    /// modification.
    static func describe(_ dog: NoteDog, depth: Int) -> String {
        let own = "\(dog.name)|\(dog.age)|owner=\(dog.owner?.id ?? -1)"
        guard depth > 0, let owner = dog.owner else { return own }
        return own + "{" + describe(owner, depth: depth - 1) + "}"
    }

    static func describe(_ person: NotePerson, depth: Int) -> String {
        let own = "\(person.name)|dogs=\(person.dogs.map(\.id))|address=\(person.address?.city ?? "-")"
        guard depth > 0 else { return own }
        return own + "[" + person.dogs.map { describe($0, depth: depth - 1) }.joined(separator: ",") + "]"
    }

    func handle(_ change: RealmCollectionChange<C>) {
        switch change {
        case .initial(let collection):
            previous = Self.snapshot(collection)
        case .update(let collection, let deletions, let insertions, let modifications):
            updates += 1
            let current = Self.snapshot(collection)
            var applied = previous.map(\.id)
            for index in deletions.reversed() { applied.remove(at: index) }
            for index in insertions where index <= applied.count { applied.insert(current[index].id, at: index) }
            if applied != current.map(\.id) {
                failures.append("\(name): \(previous.map(\.id)) + d\(deletions) i\(insertions) gave \(applied), expected \(current.map(\.id))")
            }
            let deleted = Set(deletions)
            let expectedModified = previous.indices.filter { index in
                guard !deleted.contains(index) else { return false }
                let id = previous[index].id
                return current.first { $0.id == id }?.values != previous[index].values
            }
            let invalid = modifications.filter { $0 >= previous.count || deleted.contains($0) }
            if !Set(expectedModified).isSubset(of: modifications) || !invalid.isEmpty {
                let extra = Set(modifications).subtracting(expectedModified).sorted().map { previous[$0] }
                let missing = Set(expectedModified).subtracting(modifications).sorted().map { previous[$0] }
                failures.append("\(name): modifications \(modifications), expected \(expectedModified); extra \(extra), "
                                + "missing \(missing)")
            }
            if deletions.isEmpty && insertions.isEmpty && modifications.isEmpty {
                failures.append("\(name): empty update")
            }
            previous = current
        case .error(let error):
            failures.append("\(name): error \(error)")
        }
    }
}

@Suite("Randomized notifications")
struct RandomizedNotificationTests {
    @Test("applying each delivered change set to the previous contents yields the next (seeded)")
    func randomizedChangeSets() throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["STRATA_NOTIFY_SEED"] ?? "") ?? UInt64.random(in: 0...UInt64.max)
        print("randomized notifications seed: \(seed) (STRATA_NOTIFY_SEED=\(seed) replays it)")
        var random = SeededRandom(seed: seed)
        let fixture = try NotificationFixture()
        try fixture.write { realm in
            for id in 0..<8 { realm.add(NotePerson(value: ["id": id, "name": "p\(id)"])) }
            for id in 0..<40 {
                let dog = NoteDog(value: ["id": id, "name": "d\(id % 7)", "age": id * 3 % 100])
                realm.add(dog)
            }
        }
        typealias DogResults = Results<NoteDog>
        let verifiers = (
            filtered: ChangeVerifier<DogResults>(name: "age > 30 sorted by name"),
            all: ChangeVerifier<DogResults>(name: "all dogs"),
            linked: ChangeVerifier<DogResults>(name: "owner.name BEGINSWITH p1 sorted by age desc"),
            list: ChangeVerifier<List<NoteDog>>(name: "p0.dogs"),
            limited: ChangeVerifier<DogResults>(name: "sorted by age, LIMIT 10"))
        let tokens = try fixture.harness.run {
            let realm = try fixture.realm()
            let dogs = realm.objects(NoteDog.self)
            return [
                dogs.where { $0.age > 30 }.sorted(by: [SortDescriptor(keyPath: "name"), SortDescriptor(keyPath: "age")])
                    .observe { verifiers.filtered.handle($0) },
                dogs.observe { verifiers.all.handle($0) },
                dogs.filter("owner.name BEGINSWITH 'p1'").sorted(byKeyPath: "age", ascending: false)
                    .observe { verifiers.linked.handle($0) },
                realm.object(ofType: NotePerson.self, forPrimaryKey: 0)!.dogs.observe { verifiers.list.handle($0) },
                dogs.filter("TRUEPREDICATE SORT(age ASC) LIMIT(10)").observe { verifiers.limited.handle($0) },
            ]
        }
        var nextID = 100
        for round in 0..<60 {
            let commits = Int(random.next() % 3) + 1
            for _ in 0..<commits {
                var operations: [(Realm) -> Void] = []
                for _ in 0..<(Int(random.next() % 4) + 1) {
                    let pick = Int(random.next() % 100)
                    let target = Int(random.next() % UInt64(nextID))
                    let value = Int(random.next() % 100)
                    let person = Int(random.next() % 8)
                    let id = nextID
                    switch pick {
                    case 0..<20:
                        nextID += 1
                        operations.append { $0.add(NoteDog(value: ["id": id, "name": "n\(value % 9)", "age": value])) }
                    case 20..<35:
                        operations.append { realm in
                            if let dog = realm.object(ofType: NoteDog.self, forPrimaryKey: target) { realm.delete(dog) }
                        }
                    case 35..<60:
                        // Only real changes: Realm reports an assignment of the same value as a modification,
                        // which the verifier cannot tell from no change.
                        operations.append { realm in
                            if let dog = realm.object(ofType: NoteDog.self, forPrimaryKey: target), dog.age != value { dog.age = value }
                        }
                    case 60..<70:
                        operations.append { realm in
                            if let dog = realm.object(ofType: NoteDog.self, forPrimaryKey: target), dog.name != "r\(value % 5)" {
                                dog.name = "r\(value % 5)"
                            }
                        }
                    case 70..<80:
                        operations.append { realm in
                            let owner = realm.object(ofType: NotePerson.self, forPrimaryKey: person)
                            if let dog = realm.object(ofType: NoteDog.self, forPrimaryKey: target), dog.owner?.id != owner?.id {
                                dog.owner = owner
                            }
                        }
                    case 80..<85:
                        operations.append { realm in
                            if let owner = realm.object(ofType: NotePerson.self, forPrimaryKey: person), owner.name != "p\(value % 20)" {
                                owner.name = "p\(value % 20)"
                            }
                        }
                    default:
                        operations.append { realm in
                            guard let owner = realm.object(ofType: NotePerson.self, forPrimaryKey: 0) else { return }
                            let dogs = owner.dogs
                            if let dog = realm.object(ofType: NoteDog.self, forPrimaryKey: target), value % 3 != 0 {
                                dogs.insert(dog, at: dogs.isEmpty ? 0 : value % (dogs.count + 1))
                            } else if !dogs.isEmpty {
                                if value % 2 == 0 { dogs.remove(at: value % dogs.count) } else { dogs.move(from: value % dogs.count, to: 0) }
                            }
                        }
                    }
                }
                let batch = UncheckedBox(operations)
                try fixture.writeFromOtherThread { realm in for operation in batch.value { operation(realm) } }
            }
            // Alternate between the asynchronous delivery and the synchronous one of refresh().
            if round % 2 == 0 { Thread.sleep(forTimeInterval: 0.01) }
            try fixture.harness.run { _ = try fixture.realm().refresh() }
        }
        let failures = fixture.harness.run {
            verifiers.filtered.failures + verifiers.all.failures + verifiers.linked.failures + verifiers.list.failures
                + verifiers.limited.failures
        }
        let report = failures.prefix(3).map { String($0.prefix(600)) }.joined(separator: "\n")
        #expect(failures.count == 0, "seed \(seed): \(failures.count) failures, first: \(report)")
        let updates = fixture.harness.run { verifiers.all.updates }
        #expect(updates > 10)
        fixture.harness.run { for token in tokens { token.invalidate() } }
    }
}
