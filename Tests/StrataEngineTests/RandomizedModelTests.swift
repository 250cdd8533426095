import Testing
@testable import StrataEngine

/// Applies a seeded random sequence of operations both to a store and to a plain Swift model of
/// it, and compares everything observable — rows, primary-key index, secondary indexes,
/// backlinks — as it goes (the file store with background and explicit checkpoints and
/// compactions among the operations), after reopening, and after a checkpoint.
///
/// The seed is printed; `STRATA_SEED=<seed>` replays a run.
@Suite("Randomized model")
struct RandomizedModelTests {
    static let operationCount = 3000
    static let checkEvery = 60
    /// One seed for every run in this process, so both stores see the same operations.
    static let seed = SeededRandom.seedFromEnvironment()

    @Test("a random operation sequence leaves an in-memory store equal to the model")
    func inMemoryStoreMatchesModel() throws {
        let seed = Self.seed
        print("randomized model (in-memory): seed \(seed) (STRATA_SEED=\(seed) replays it)")
        let store = try Store.open(.inMemory(uniqueMemoryIdentifier()))
        var run = try ModelRun(seed: seed, store: store, label: "in-memory seed \(seed)")
        try run.perform(Self.operationCount, checkEvery: Self.checkEvery, on: store)
        run.verify(store.currentSnapshot, "end")
        print("randomized model (in-memory): \(run.summary)")
    }

    @Test("a random operation sequence leaves a file store equal to the model, after reopening and after a checkpoint")
    func fileStoreMatchesModelAcrossReopen() throws {
        let seed = Self.seed
        print("randomized model (file): seed \(seed) (STRATA_SEED=\(seed) replays it)")
        try withTemporaryDirectory { directory in
            // A small threshold makes background checkpoints run while the operations go on; a
            // cache of a few leaves makes nearly every read of a checkpointed leaf read its page.
            let configuration = StoreConfiguration(
                location: .file(path: directory.file("model.strata")), durability: .normal,
                checkpointThreshold: 16 << 10, cacheSize: 8 << 10)
            var run: ModelRun! = nil
            try withStore(configuration) { store in
                run = try ModelRun(seed: seed, store: store, label: "file seed \(seed)")
                try run.perform(Self.operationCount, checkEvery: Self.checkEvery, on: store, maintenance: true)
                run.verify(store.currentSnapshot, "before reopening")
                print("randomized model (file): \(run.summary), background checkpoints: \(store.statistics.checkpoints)")
            }
            try withStore(configuration) { store in
                #expect(store.statistics.commits == 0)
                run.verify(store.currentSnapshot, "after reopening")
                // Keys keep counting from where they were: the model predicts every new key.
                try run.attach(store)
                try run.perform(300, checkEvery: Self.checkEvery, on: store, maintenance: true)
                run.verify(store.currentSnapshot, "after more operations")
                try store.checkpoint()
                #expect(store.statistics.checkpoints >= 1, "\(store.statistics.lastCheckpointError ?? "no error")")
                #expect(store.statistics.logSegments == 1)
            }
            try withStore(configuration) { store in
                run.verify(store.currentSnapshot, "after checkpoint and reopening")
                try run.attach(store)
                try run.perform(100, checkEvery: 50, on: store)
                run.verify(store.currentSnapshot, "after operations on the checkpointed store")
            }
            try withStore(configuration) { store in
                run.verify(store.currentSnapshot, "after the final reopening")
            }
        }
    }
}

// MARK: - The model

/// Person: 0 id (int, primary key), 1 name (string, indexed), 2 age (optional int, indexed),
/// 3 scores (list of int), 4 tags (set of string), 5 attrs (dictionary of int),
/// 6 bestFriend (link to Person), 7 pets (list of links to Pet), 8 following (set of links to Person).
private let personSchema = TableSchema(
    name: "Person",
    columns: [
        ColumnSchema("id", .int),
        ColumnSchema("name", .string, isIndexed: true),
        ColumnSchema("age", .int, isOptional: true, isIndexed: true),
        ColumnSchema("scores", .int, collection: .list),
        ColumnSchema("tags", .string, collection: .set),
        ColumnSchema("attrs", .int, collection: .dictionary),
        ColumnSchema("bestFriend", .link, linkTarget: "Person"),
        ColumnSchema("pets", .link, collection: .list, linkTarget: "Pet"),
        ColumnSchema("following", .link, collection: .set, linkTarget: "Person"),
    ],
    primaryKey: "id")

/// Pet: 0 name (string, indexed), 1 owner (link to Person), 2 favorites (dictionary of links to Person).
private let petSchema = TableSchema(
    name: "Pet",
    columns: [
        ColumnSchema("name", .string, isIndexed: true),
        ColumnSchema("owner", .link, linkTarget: "Person"),
        ColumnSchema("favorites", .link, collection: .dictionary, linkTarget: "Person"),
    ])

private struct PersonModel: Equatable {
    var id: Int64
    var name: String
    var age: Int64?
    var scores: [Int64] = []
    var tags: Set<String> = []
    var attrs: [String: Int64] = [:]
    var bestFriend: ObjectKey?
    var pets: [ObjectKey] = []
    var following: Set<ObjectKey> = []
}

private struct PetModel: Equatable {
    var name: String
    var owner: ObjectKey?
    var favorites: [String: ObjectKey?] = [:]
}

/// The whole store as plain Swift values.
private struct Model {
    var people: [ObjectKey: PersonModel] = [:]
    var pets: [ObjectKey: PetModel] = [:]
    var nextPersonKey: Int64 = 0
    var nextPetKey: Int64 = 0
    var erasedPeople: Set<ObjectKey> = []
    var erasedPets: Set<ObjectKey> = []

    mutating func erasePerson(_ key: ObjectKey) {
        people[key] = nil
        erasedPeople.insert(key)
        for (other, var person) in people {
            if person.bestFriend == key { person.bestFriend = nil }
            person.following.remove(key)
            people[other] = person
        }
        for (petKey, var pet) in pets {
            if pet.owner == key { pet.owner = nil }
            for (name, favorite) in pet.favorites where favorite == key { pet.favorites[name] = .some(nil) }
            pets[petKey] = pet
        }
    }

    mutating func erasePet(_ key: ObjectKey) {
        pets[key] = nil
        erasedPets.insert(key)
        for (other, var person) in people where person.pets.contains(key) {
            person.pets.removeAll { $0 == key }
            people[other] = person
        }
    }
}

private let names = ["ann", "bob", "cy", "dee", "eve", "fay", "gus"]
private let tagPool = ["red", "green", "blue", "x", "y"]
private let attrKeys = ["a", "b", "c", "d"]
private let favoriteKeys = ["f0", "f1", "f2"]
private let primaryKeyRange: Range<Int64> = 0..<250

/// One randomized run: the generator, the model, and the store it is compared with.
private struct ModelRun {
    let label: String
    private var random: SeededRandom
    /// Picks the explicit checkpoints and compactions: a generator of its own, so that the
    /// operations are the same with and without them.
    private var maintenanceRandom: SeededRandom
    private var model = Model()
    private var person: TableKey
    private var pet: TableKey
    private var operations = 0
    private var commits = 0
    private var cancels = 0
    private var rejected = 0
    private var compactions = 0

    init(seed: UInt64, store: Store, label: String) throws {
        self.label = label
        random = SeededRandom(seed: seed)
        maintenanceRandom = SeededRandom(seed: seed ^ 0x5EED_C0DE)
        (person, pet) = try store.write { tx in (try tx.createTable(personSchema), try tx.createTable(petSchema)) }
    }

    var summary: String {
        "\(operations) operations in \(commits) commits, \(cancels) cancelled transactions, \(rejected) rejected "
            + "operations, \(compactions) compactions, \(model.people.count) people and \(model.pets.count) pets at the end"
    }

    /// Continues with a reopened store: looks its tables up again.
    mutating func attach(_ store: Store) throws {
        person = try #require(store.currentSnapshot.tableKey(named: "Person"))
        pet = try #require(store.currentSnapshot.tableKey(named: "Pet"))
    }

    /// Performs `count` operations on `store` in transactions of one to five, committing most and
    /// cancelling some, and verifies the store against the model every `checkEvery` operations.
    /// With `maintenance`, about one transaction in 25 is followed by an explicit checkpoint and
    /// one in 75 by a compaction.
    mutating func perform(_ count: Int, checkEvery: Int, on store: Store, maintenance: Bool = false) throws {
        var done = 0
        var sinceCheck = 0
        while done < count {
            let batch = min(Int.random(in: 1...5, using: &random), count - done)
            let cancel = Int.random(in: 0..<20, using: &random) == 0
            let tx = try store.beginWrite()
            let saved = model
            for _ in 0..<batch { try step(tx) }
            if cancel {
                tx.cancel()
                model = saved
                cancels += 1
            } else {
                try tx.commit()
                commits += 1
            }
            done += batch
            operations += batch
            sinceCheck += batch
            if maintenance {
                switch maintenanceRandom.next() % 75 {
                case 0:
                    try store.compact()
                    compactions += 1
                case 1, 2: try store.checkpoint()
                default: break
                }
            }
            if sinceCheck >= checkEvery {
                sinceCheck = 0
                verify(store.currentSnapshot, "after operation \(operations)")
            }
        }
    }

    // MARK: Operations

    private mutating func randomPerson() -> ObjectKey? {
        model.people.keys.sorted().randomElement(using: &random)
    }

    private mutating func randomPet() -> ObjectKey? {
        model.pets.keys.sorted().randomElement(using: &random)
    }

    private mutating func randomAge() -> Int64? {
        Int.random(in: 0..<4, using: &random) == 0 ? nil : Int64.random(in: 0..<8, using: &random)
    }

    private func personLink(_ key: ObjectKey?) -> Value { key.map { link(person, $0) } ?? .null }

    /// One random operation, applied to the transaction and the model.
    private mutating func step(_ tx: WriteTransaction) throws {
        let choice = Int.random(in: 0..<100, using: &random)
        guard let target = randomPerson(), choice >= 12 else { return try insertPerson(tx) }
        let personTable = person
        let at = { (column: Int) in path(personTable, target, column) }
        switch choice {
        case 12..<20:
            try insertPet(tx)
        case 20..<26:
            let name = names.randomElement(using: &random)!
            try tx.setValue(.string(name), at: at(1))
            model.people[target]!.name = name
        case 26..<32:
            let age = randomAge()
            try tx.setValue(age.map(Value.int) ?? .null, at: at(2))
            model.people[target]!.age = age
        case 32..<35:
            let id = Int64.random(in: primaryKeyRange, using: &random)
            if let owner = model.people.first(where: { $0.value.id == id })?.key, owner != target {
                expectStrataError(.duplicatePrimaryKey, "\(label): changing a key to a taken one") {
                    try tx.setValue(.int(id), at: at(0))
                }
                rejected += 1
            } else {
                try tx.setValue(.int(id), at: at(0))
                model.people[target]!.id = id
            }
        case 35..<41:
            try tx.eraseObject(target, in: person)
            model.erasePerson(target)
        case 41..<45:
            guard let victim = randomPet() else { return try insertPet(tx) }
            try tx.eraseObject(victim, in: pet)
            model.erasePet(victim)
        case 45..<50:
            let score = Int64.random(in: -5...5, using: &random)
            try tx.listAppend(.int(score), in: at(3))
            model.people[target]!.scores.append(score)
        case 50..<53:
            let scores = model.people[target]!.scores
            guard !scores.isEmpty else { return }
            let index = Int.random(in: 0..<scores.count, using: &random)
            try tx.listErase(at: index, in: at(3))
            model.people[target]!.scores.remove(at: index)
        case 53..<57:
            let tag = tagPool.randomElement(using: &random)!
            let inserted = try tx.setInsert(.string(tag), in: at(4))
            #expect(inserted == model.people[target]!.tags.insert(tag).inserted, "\(label): setInsert result")
        case 57..<60:
            let tag = tagPool.randomElement(using: &random)!
            let erased = try tx.setErase(.string(tag), in: at(4))
            #expect(erased == (model.people[target]!.tags.remove(tag) != nil), "\(label): setErase result")
        case 60..<64:
            let key = attrKeys.randomElement(using: &random)!
            let value = Int64.random(in: 0..<100, using: &random)
            try tx.dictionarySet(.int(value), forKey: key, in: at(5))
            model.people[target]!.attrs[key] = value
        case 64..<67:
            let key = attrKeys.randomElement(using: &random)!
            let erased = try tx.dictionaryErase(key: key, in: at(5))
            #expect(erased == (model.people[target]!.attrs.removeValue(forKey: key) != nil), "\(label): dictionaryErase")
        case 67..<72:
            let friend = Bool.random(using: &random) ? randomPerson() : nil
            try tx.setValue(personLink(friend), at: at(6))
            model.people[target]!.bestFriend = friend
        case 72..<77:
            guard let pet = randomPet() else { return try insertPet(tx) }
            try tx.listAppend(link(self.pet, pet), in: at(7))
            model.people[target]!.pets.append(pet)
        case 77..<80:
            let pets = model.people[target]!.pets
            guard !pets.isEmpty else { return }
            let index = Int.random(in: 0..<pets.count, using: &random)
            try tx.listErase(at: index, in: at(7))
            model.people[target]!.pets.remove(at: index)
        case 80..<85:
            let followed = randomPerson()!
            let inserted = try tx.setInsert(link(person, followed), in: at(8))
            #expect(inserted == model.people[target]!.following.insert(followed).inserted, "\(label): follow")
        case 85..<88:
            let followed = randomPerson()!
            let erased = try tx.setErase(link(person, followed), in: at(8))
            #expect(erased == (model.people[target]!.following.remove(followed) != nil), "\(label): unfollow")
        case 88..<92:
            guard let pet = randomPet() else { return try insertPet(tx) }
            let owner = Bool.random(using: &random) ? target : nil
            try tx.setValue(personLink(owner), at: path(self.pet, pet, 1))
            model.pets[pet]!.owner = owner
        case 92..<97:
            guard let pet = randomPet() else { return try insertPet(tx) }
            let key = favoriteKeys.randomElement(using: &random)!
            let favorite = Int.random(in: 0..<5, using: &random) == 0 ? nil : target
            try tx.dictionarySet(personLink(favorite), forKey: key, in: path(self.pet, pet, 2))
            model.pets[pet]!.favorites[key] = .some(favorite)
        default:
            guard let pet = randomPet() else { return try insertPet(tx) }
            let key = favoriteKeys.randomElement(using: &random)!
            let erased = try tx.dictionaryErase(key: key, in: path(self.pet, pet, 2))
            #expect(erased == (model.pets[pet]!.favorites.removeValue(forKey: key) != nil), "\(label): unfavorite")
        }
    }

    private mutating func insertPerson(_ tx: WriteTransaction) throws {
        let id = Int64.random(in: primaryKeyRange, using: &random)
        let name = names.randomElement(using: &random)!
        let age = randomAge()
        let scores = (0..<Int.random(in: 0..<3, using: &random)).map { _ in Int64.random(in: 0..<9, using: &random) }
        // Given as a list with possible duplicates; the store keeps a sorted set.
        let tags = (0..<Int.random(in: 0..<3, using: &random)).map { _ in tagPool.randomElement(using: &random)! }
        let friend = Bool.random(using: &random) ? randomPerson() : nil
        let pets = (0..<Int.random(in: 0..<2, using: &random)).compactMap { _ in randomPet() }
        let values: [Value] = [
            .int(id), .string(name), age.map(Value.int) ?? .null, .list(scores.map(Value.int)),
            .list(tags.map(Value.string)), .dictionary(ValueMap([("a", .int(1))])), personLink(friend),
            .list(pets.map { link(pet, $0) }), .set([]),
        ]
        if model.people.values.contains(where: { $0.id == id }) {
            expectStrataError(.duplicatePrimaryKey, "\(label): inserting a taken primary key") {
                try tx.insertObject(into: person, values: values)
            }
            rejected += 1
            return
        }
        let key = try tx.insertObject(into: person, values: values)
        #expect(key == ObjectKey(model.nextPersonKey), "\(label): keys are assigned in order and never reused")
        model.nextPersonKey = key.rawValue + 1
        model.people[key] = PersonModel(id: id, name: name, age: age, scores: scores, tags: Set(tags),
                                        attrs: ["a": 1], bestFriend: friend, pets: pets)
    }

    private mutating func insertPet(_ tx: WriteTransaction) throws {
        let name = names.randomElement(using: &random)!
        let owner = Bool.random(using: &random) ? randomPerson() : nil
        let favorite = randomPerson()
        let favorites: [String: ObjectKey?] = favorite.map { ["f0": .some($0)] } ?? [:]
        let key = try tx.insertObject(into: pet, values: [
            .string(name), personLink(owner), .dictionary(ValueMap(favorites.map { ($0.key, personLink($0.value)) })),
        ])
        #expect(key == ObjectKey(model.nextPetKey), "\(label): pet keys are assigned in order")
        model.nextPetKey = key.rawValue + 1
        model.pets[key] = PetModel(name: name, owner: owner, favorites: favorites)
    }

    // MARK: Verification

    private func expectedRow(_ model: PersonModel) -> [Value] {
        [
            .int(model.id), .string(model.name), model.age.map(Value.int) ?? .null, .list(model.scores.map(Value.int)),
            .set(model.tags.sorted().map(Value.string)),
            .dictionary(ValueMap(model.attrs.map { ($0.key, Value.int($0.value)) })),
            personLink(model.bestFriend), .list(model.pets.map { link(pet, $0) }),
            .set(model.following.sorted().map { link(person, $0) }),
        ]
    }

    private func expectedRow(_ model: PetModel) -> [Value] {
        [.string(model.name), personLink(model.owner),
         .dictionary(ValueMap(model.favorites.map { ($0.key, personLink($0.value)) }))]
    }

    /// The backlinks the model implies, per object, sorted as ``Table/backlinks(to:)`` sorts them.
    private func expectedBacklinks() -> (people: [ObjectKey: [Backlink]], pets: [ObjectKey: [Backlink]]) {
        var people: [ObjectKey: [Backlink]] = [:]
        var pets: [ObjectKey: [Backlink]] = [:]
        for (key, model) in self.model.people {
            if let friend = model.bestFriend { people[friend, default: []].append(Backlink(table: person, column: 6, object: key)) }
            for target in model.pets { pets[target, default: []].append(Backlink(table: person, column: 7, object: key)) }
            for target in model.following {
                people[target, default: []].append(Backlink(table: person, column: 8, object: key))
            }
        }
        // Pet rows link into Person through columns 1 and 2 of the Pet table.
        for (key, model) in self.model.pets {
            if let owner = model.owner { people[owner, default: []].append(Backlink(table: pet, column: 1, object: key)) }
            for case let favorite? in model.favorites.values {
                people[favorite, default: []].append(Backlink(table: pet, column: 2, object: key))
            }
        }
        let order = { (a: Backlink, b: Backlink) in (a.table, a.column, a.object) < (b.table, b.column, b.object) }
        return (people.mapValues { $0.sorted(by: order) }, pets.mapValues { $0.sorted(by: order) })
    }

    /// Compares `snapshot` with the model: rows, primary keys, secondary indexes and backlinks.
    func verify(_ snapshot: Snapshot, _ moment: String, sourceLocation: SourceLocation = #_sourceLocation) {
        var wrong: [String] = []
        func check(_ condition: Bool, _ message: @autoclosure () -> String) {
            if !condition && wrong.count < 12 { wrong.append(message()) }
        }
        guard let people = snapshot.table(person), let pets = snapshot.table(pet) else {
            Issue.record("\(label) \(moment): tables missing", sourceLocation: sourceLocation)
            return
        }

        // Rows.
        check(people.objectKeys == model.people.keys.sorted(), "Person keys \(people.objectKeys.count) vs \(model.people.count)")
        check(pets.objectKeys == model.pets.keys.sorted(), "Pet keys \(pets.objectKeys.count) vs \(model.pets.count)")
        for (key, person) in model.people {
            let row = people.row(key)?.values
            check(row == expectedRow(person), "Person \(key): \(String(describing: row)) != \(expectedRow(person))")
        }
        for (key, pet) in model.pets {
            let row = pets.row(key)?.values
            check(row == expectedRow(pet), "Pet \(key): \(String(describing: row)) != \(expectedRow(pet))")
        }
        check(people.nextObjectKey == model.nextPersonKey, "Person next key \(people.nextObjectKey) vs \(model.nextPersonKey)")
        check(pets.nextObjectKey == model.nextPetKey, "Pet next key \(pets.nextObjectKey) vs \(model.nextPetKey)")

        // Primary-key index, for every id in the range (present and absent).
        var owners: [Int64: ObjectKey] = [:]
        for (key, person) in model.people { owners[person.id] = key }
        for id in primaryKeyRange {
            check(people.object(forPrimaryKey: .int(id)) == owners[id],
                  "pk \(id) → \(String(describing: people.object(forPrimaryKey: .int(id)))), expected \(String(describing: owners[id]))")
        }

        // Secondary indexes: equal to the model and to a scan.
        for name in names + ["nobody"] {
            let expected = model.people.filter { $0.value.name == name }.keys.sorted()
            check(people.objects(where: 1, equals: .string(name)) == expected, "Person.name == \(name)")
            check(people.scan(column: 1, equals: .string(name)) == expected, "scan Person.name == \(name)")
            let expectedPets = model.pets.filter { $0.value.name == name }.keys.sorted()
            check(pets.objects(where: 0, equals: .string(name)) == expectedPets, "Pet.name == \(name)")
        }
        for age in [nil] + (0..<9).map(Optional.some) as [Int64?] {
            let expected = model.people.filter { $0.value.age == age }.keys.sorted()
            check(people.objects(where: 2, equals: age.map(Value.int) ?? .null) == expected,
                  "Person.age == \(String(describing: age))")
        }

        // Backlinks, including none for erased objects.
        let backlinks = expectedBacklinks()
        for key in model.people.keys {
            check(people.backlinks(to: key) == backlinks.people[key] ?? [],
                  "backlinks to Person \(key): \(people.backlinks(to: key)) != \(backlinks.people[key] ?? [])")
            check(people.backlinkCount(to: key) == backlinks.people[key]?.count ?? 0, "backlink count of Person \(key)")
        }
        for key in model.pets.keys {
            check(pets.backlinks(to: key) == backlinks.pets[key] ?? [],
                  "backlinks to Pet \(key): \(pets.backlinks(to: key)) != \(backlinks.pets[key] ?? [])")
        }
        for key in model.erasedPeople { check(people.backlinks(to: key).isEmpty, "backlinks to erased Person \(key)") }
        for key in model.erasedPets { check(pets.backlinks(to: key).isEmpty, "backlinks to erased Pet \(key)") }

        #expect(wrong.isEmpty, "\(label) \(moment): \(wrong.joined(separator: "\n"))", sourceLocation: sourceLocation)
    }
}
