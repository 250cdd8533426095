import Foundation
@testable import Strata
import Testing

// AnyRealmValue (Realm's "Mixed"): every case, links, nested lists and dictionaries, in-place
// mutation of nested collections, and the nesting limit.

// MARK: - Models

final class ARVHolder: Object {
    @Persisted var name: String
    @Persisted var value: AnyRealmValue
    @Persisted var list: List<AnyRealmValue>
    @Persisted var map: Map<String, AnyRealmValue>
}

final class ARVTarget: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
}

final class ARVOther: Object {
    @Persisted var label: String
}

// MARK: - Helpers

private func arvTemporaryRealmURL() throws -> URL {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("strata-anyrealmvalue-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory.appendingPathComponent("mixed.strata")
}

private func arvRemoveRealm(at url: URL) {
    try? FileManager.default.removeItem(at: url.deletingLastPathComponent())
}

private func arvTypes() -> [ObjectBase.Type] { [ARVHolder.self, ARVTarget.self, ARVOther.self] }

private func arvMemoryRealm() throws -> Realm {
    try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "mixed-\(UUID().uuidString)", objectTypes: arvTypes()))
}

/// `levels` lists, each holding the next, with `innermost` in the deepest one.
private func arvNestedLists(_ levels: Int, innermost: AnyRealmValue?) -> AnyRealmValue {
    var value: AnyRealmValue = .fromArray(innermost.map { [$0] } ?? [])
    for _ in 1..<levels { value = .fromArray([value]) }
    return value
}

/// How many lists deep a value goes (following the first element).
private func arvDepth(_ value: AnyRealmValue) -> Int {
    var depth = 0
    var current = value
    while let list = current.listValue {
        depth += 1
        guard let first = list.first else { break }
        current = first
    }
    return depth
}

/// The scalar cases, with a label. Dates use binary-exact fractions so they compare exactly.
private func arvScalarCases() -> [(String, AnyRealmValue)] { [
    ("none", .none),
    ("int", .int(Int.min)),
    ("int max", .int(Int.max)),
    ("bool", .bool(true)),
    ("bool false", .bool(false)),
    ("float", .float(3.25)),
    ("double", .double(-2.5e-300)),
    ("string", .string("mixed ✓")),
    ("empty string", .string("")),
    ("data", .data(Data([0, 1, 0xFF]))),
    ("empty data", .data(Data())),
    ("date", .date(Date(timeIntervalSince1970: 1_650_000_000.25))),
    ("objectId", .objectId(ObjectId("0123456789abcdef01234567"))),
    ("decimal128", .decimal128("-98765.4321")),
    ("uuid", .uuid(UUID(uuidString: "00112233-4455-6677-8899-AABBCCDDEEFF")!)),
] }

// MARK: - Tests

@Suite("AnyRealmValue")
struct AnyRealmValueTests {
    @Test("Every scalar case is stored and read back with its case and value, also after reopening")
    func scalarCasesRoundTrip() throws {
        let url = try arvTemporaryRealmURL()
        defer { arvRemoveRealm(at: url) }
        let config = Realm.Configuration(fileURL: url, objectTypes: arvTypes())
        let cases = arvScalarCases()
        try {
            let realm = try Realm(configuration: config)
            try realm.write {
                for (label, value) in cases {
                    let holder = ARVHolder()
                    holder.name = label
                    holder.value = value
                    holder.list.append(value)
                    holder.map[label.replacingOccurrences(of: " ", with: "_")] = value
                    realm.add(holder)
                }
            }
            let holders = realm.objects(ARVHolder.self)
            for (index, (label, value)) in cases.enumerated() {
                #expect(holders[index].value == value, "\(label) before reopen")
            }
        }()
        let realm = try Realm(configuration: config)
        let holders = realm.objects(ARVHolder.self)
        try #require(holders.count == cases.count)
        for (index, (label, value)) in cases.enumerated() {
            let holder = holders[index]
            #expect(holder.name == label)
            #expect(holder.value == value, "\(label): read \(holder.value)")
            #expect(Array(holder.list) == [value], "\(label) in a List")
            #expect(holder.map[label.replacingOccurrences(of: " ", with: "_")] == value, "\(label) in a Map")
        }
    }

    @Test("A nil among loosely typed values for a List<AnyRealmValue> or Map value is .none, as NSNull is")
    func nilThroughAnyIsNone() throws {
        let realm = try arvMemoryRealm()
        let holder = try realm.write {
            realm.create(ARVHolder.self, value: ["list": ["hello", nil] as [Any?],
                                                 "map": ["a": nil, "b": 1] as [String: Any?]])
        }
        #expect(Array(holder.list) == [.string("hello"), .none])
        #expect(holder.map["a"] == AnyRealmValue.none)
        #expect(holder.map["b"] == .int(1))
        #expect(AnyRealmValue._rlmFromAny(Optional<Any>.none as Any) == AnyRealmValue.none)
    }

    @Test("A Map property takes a map of another value type, entry by entry, as Realm enumerates any map")
    func mapOfAnotherValueType() throws {
        let realm = try arvMemoryRealm()
        let scores = Map<String, Int>()
        scores["a"] = 1
        scores["b"] = 2
        let holder = try realm.write { realm.create(ARVHolder.self, value: ["map": scores]) }
        #expect(holder.map["a"] == .int(1) && holder.map["b"] == .int(2) && holder.map.count == 2)
    }

    @Test("The typed accessors return the value only for their own case")
    func typedAccessors() throws {
        let realm = try arvMemoryRealm()
        let holder = ARVHolder()
        try realm.write { realm.add(holder) }
        try realm.write { holder.value = .int(5) }
        #expect(holder.value.intValue == 5)
        #expect(holder.value.doubleValue == nil)
        #expect(holder.value.boolValue == nil)
        try realm.write { holder.value = .float(1.5) }
        #expect(holder.value.floatValue == 1.5)
        #expect(holder.value.doubleValue == nil, "a Float stays a .float, not a .double")
        try realm.write { holder.value = .double(1.5) }
        #expect(holder.value.doubleValue == 1.5)
        #expect(holder.value.floatValue == nil)
        try realm.write { holder.value = .bool(true) }
        #expect(holder.value.boolValue == true)
        #expect(holder.value.intValue == nil, "a Bool stays a .bool, not an .int")
        try realm.write { holder.value = .string("s") }
        #expect(holder.value.stringValue == "s")
        try realm.write { holder.value = .data(Data([7])) }
        #expect(holder.value.dataValue == Data([7]))
        let date = Date(timeIntervalSince1970: 12_345)
        try realm.write { holder.value = .date(date) }
        #expect(holder.value.dateValue == date)
        let id = ObjectId.generate()
        try realm.write { holder.value = .objectId(id) }
        #expect(holder.value.objectIdValue == id)
        try realm.write { holder.value = .decimal128("1.25") }
        #expect(holder.value.decimal128Value == "1.25")
        let uuid = UUID()
        try realm.write { holder.value = .uuid(uuid) }
        #expect(holder.value.uuidValue == uuid)
        try realm.write { holder.value = .none }
        #expect(holder.value == .none)
        #expect(holder.value.listValue == nil && holder.value.dictionaryValue == nil)
    }

    @Test("An .object value links to the object, adding it when unmanaged, and survives reopening")
    func objectLinks() throws {
        let url = try arvTemporaryRealmURL()
        defer { arvRemoveRealm(at: url) }
        let config = Realm.Configuration(fileURL: url, objectTypes: arvTypes())
        try {
            let realm = try Realm(configuration: config)
            let target = ARVTarget(value: ["id": 7, "name": "seven"] as [String: Any])
            let holder = ARVHolder()
            holder.value = .object(target)
            holder.list.append(.object(ARVOther(value: ["label": "in list"])))
            holder.map["linked"] = .object(target)
            try realm.write { realm.add(holder) }
            #expect(target.realm != nil, "the linked unmanaged object is added with the holder")
            #expect(realm.objects(ARVTarget.self).count == 1)
            #expect(realm.objects(ARVOther.self).count == 1)
            let linked = try #require(holder.value.object(ARVTarget.self))
            #expect(linked == target)
            #expect(linked.name == "seven")
            #expect(holder.value.object(ARVOther.self) == nil, "object(_:) with another type is nil")
        }()
        let realm = try Realm(configuration: config)
        let holder = try #require(realm.objects(ARVHolder.self).first)
        // Read the links before anything else asks for the target classes.
        let linked = try #require(holder.value.object(ARVTarget.self), "read \(holder.value)")
        #expect(linked.realm != nil)
        #expect(linked.id == 7)
        #expect(linked.name == "seven")
        #expect(holder.list.first?.object(ARVOther.self)?.label == "in list")
        #expect(holder.map["linked"]?.object(ARVTarget.self)?.id == 7)
        #expect(linked == realm.object(ofType: ARVTarget.self, forPrimaryKey: 7))
    }

    @Test("Deleting the object an .object value links to makes the value .none")
    func deletingLinkedObject() throws {
        let realm = try arvMemoryRealm()
        let target = ARVTarget(value: ["id": 1, "name": "doomed"] as [String: Any])
        let holder = ARVHolder()
        holder.value = .object(target)
        try realm.write { realm.add(holder) }
        try realm.write { realm.delete(target) }
        #expect(holder.value == .none, "read \(holder.value)")
        if case .object(let object) = holder.value {
            #expect(!object.isInvalidated, "a dangling link to a deleted object")
        }
    }

    @Test("Lists and dictionaries nest several levels deep through fromArray and fromDictionary")
    func nestedCollections() throws {
        let url = try arvTemporaryRealmURL()
        defer { arvRemoveRealm(at: url) }
        let config = Realm.Configuration(fileURL: url, objectTypes: arvTypes())
        let nested: AnyRealmValue = .fromArray([
            .int(1),
            .fromDictionary([
                "inner": .fromArray([.string("deep"), .fromDictionary(["leaf": .double(2.5), "empty": .fromArray([])])]),
                "flag": .bool(true),
            ]),
            .fromArray([.fromArray([.fromArray([.string("four levels")])])]),
            .none,
        ])
        func verify(_ value: AnyRealmValue, _ stage: String) throws {
            let top = try #require(value.listValue, "\(stage): top is a list")
            #expect(top.count == 4, "\(stage)")
            #expect(top[0] == .int(1), "\(stage)")
            let dictionary = try #require(top[1].dictionaryValue, "\(stage)")
            #expect(dictionary.count == 2, "\(stage)")
            #expect(dictionary.keys == ["flag", "inner"], "\(stage)")
            #expect(dictionary["flag"] == .bool(true), "\(stage)")
            let inner = try #require(dictionary["inner"]?.listValue, "\(stage)")
            #expect(inner.count == 2, "\(stage)")
            #expect(inner[0] == .string("deep"), "\(stage)")
            let leafDictionary = try #require(inner[1].dictionaryValue, "\(stage)")
            #expect(leafDictionary["leaf"] == .double(2.5), "\(stage)")
            #expect(leafDictionary["empty"]?.listValue?.count == 0, "\(stage)")
            let deep = top[2].listValue?.first?.listValue?.first?.listValue?.first
            #expect(deep == .string("four levels"), "\(stage)")
            #expect(top[3] == .none, "\(stage)")
        }
        try verify(nested, "unmanaged")
        try {
            let realm = try Realm(configuration: config)
            let holder = ARVHolder()
            holder.value = nested
            holder.list.append(nested)
            holder.map["nested"] = nested
            try realm.write { realm.add(holder) }
            try verify(holder.value, "managed property")
            try verify(holder.list[0], "managed List element")
            try verify(try #require(holder.map["nested"]), "managed Map value")
            #expect(holder.value.listValue?.realm != nil, "a nested list read from a managed object is managed")
        }()
        let realm = try Realm(configuration: config)
        let holder = try #require(realm.objects(ARVHolder.self).first)
        try verify(holder.value, "after reopen")
        try verify(holder.list[0], "List element after reopen")
        try verify(try #require(holder.map["nested"]), "Map value after reopen")
    }

    @Test("A nested managed list and dictionary can be changed in place inside a write, and reopening keeps it")
    func mutateNestedInPlace() throws {
        let url = try arvTemporaryRealmURL()
        defer { arvRemoveRealm(at: url) }
        let config = Realm.Configuration(fileURL: url, objectTypes: arvTypes())
        try {
            let realm = try Realm(configuration: config)
            let holder = ARVHolder()
            holder.value = .fromArray([
                .string("a"),
                .fromDictionary(["items": .fromArray([.int(1), .int(2)]), "gone": .int(0)]),
            ])
            try realm.write { realm.add(holder) }
            let items = try #require(holder.value.listValue?[1].dictionaryValue?["items"]?.listValue)
            let dictionary = try #require(holder.value.listValue?[1].dictionaryValue)
            try realm.write {
                items.append(.int(3))
                items[0] = .string("one")
                items.insert(.bool(false), at: 1)
                dictionary["added"] = .fromArray([.string("new nested")])
                dictionary["gone"] = nil
                holder.value.listValue?.append(.double(9.5))
                holder.value.listValue?[0] = .string("A")
            }
            // The accessors obtained before the write see the change.
            #expect(Array(items) == [.string("one"), .bool(false), .int(2), .int(3)])
            #expect(dictionary.keys == ["added", "items"])
        }()
        let realm = try Realm(configuration: config)
        let holder = try #require(realm.objects(ARVHolder.self).first)
        let top = try #require(holder.value.listValue)
        #expect(top.count == 3)
        #expect(top[0] == .string("A"))
        #expect(top[2] == .double(9.5))
        let dictionary = try #require(top[1].dictionaryValue)
        #expect(dictionary.keys == ["added", "items"])
        #expect(dictionary["gone"] == nil)
        #expect(dictionary["added"]?.listValue.map { Array($0) } == [.string("new nested")])
        let items = try #require(dictionary["items"]?.listValue)
        #expect(Array(items) == [.string("one"), .bool(false), .int(2), .int(3)])
    }

    @Test("Collections nested in List<AnyRealmValue> elements and Map values can be changed in place")
    func mutateNestedInCollectionProperties() throws {
        let realm = try arvMemoryRealm()
        let holder = ARVHolder()
        holder.list.append(.fromArray([.int(1)]))
        holder.list.append(.string("flat"))
        holder.map["nested"] = .fromDictionary(["a": .int(1)])
        try realm.write { realm.add(holder) }
        try realm.write {
            holder.list[0].listValue?.append(.int(2))
            holder.map["nested"]?.dictionaryValue?["b"] = .fromArray([.bool(true)])
        }
        #expect(holder.list[0].listValue.map { Array($0) } == [.int(1), .int(2)])
        #expect(holder.list[1] == .string("flat"))
        let nested = try #require(holder.map["nested"]?.dictionaryValue)
        #expect(nested.keys == ["a", "b"])
        #expect(nested["b"]?.listValue.map { Array($0) } == [.bool(true)])
    }

    @Test("A nested list can have elements removed and be cleared in place")
    func removeFromNestedList() throws {
        let realm = try arvMemoryRealm()
        let holder = ARVHolder()
        holder.value = .fromDictionary(["numbers": .fromArray([.int(1), .int(2), .int(3)])])
        try realm.write { realm.add(holder) }
        let numbers = try #require(holder.value.dictionaryValue?["numbers"]?.listValue)
        try realm.write { numbers.remove(at: 1) }
        #expect(Array(numbers) == [.int(1), .int(3)])
        try realm.write { numbers.removeAll() }
        #expect(numbers.isEmpty)
        #expect(holder.value.dictionaryValue?["numbers"]?.listValue?.count == 0)
    }

    @Test("Changes to a nested managed list inside a cancelled write are discarded")
    func nestedMutationCancelled() throws {
        let realm = try arvMemoryRealm()
        let holder = ARVHolder()
        holder.value = .fromArray([.int(1)])
        try realm.write { realm.add(holder) }
        let list = try #require(holder.value.listValue)
        realm.beginWrite()
        list.append(.int(2))
        #expect(list.count == 2)
        realm.cancelWrite()
        #expect(Array(list) == [.int(1)])
    }

    @Test("Replacing a nested collection with a scalar and back works")
    func replaceNestedWithScalar() throws {
        let realm = try arvMemoryRealm()
        let holder = ARVHolder()
        holder.value = .fromArray([.int(1)])
        try realm.write { realm.add(holder) }
        try realm.write { holder.value = .string("flat") }
        #expect(holder.value == .string("flat"))
        try realm.write { holder.value = .fromDictionary(["k": .int(2)]) }
        #expect(holder.value.dictionaryValue?["k"] == .int(2))
    }

    @Test("Nesting up to 100 levels is accepted and reads back at full depth")
    func hundredLevelsAccepted() throws {
        let realm = try arvMemoryRealm()
        let holder = ARVHolder()
        try realm.write { realm.add(holder) }
        try realm.write { holder.value = arvNestedLists(100, innermost: .int(42)) }
        #expect(arvDepth(holder.value) == 100)
        var current = holder.value
        while let first = current.listValue?.first { current = first }
        #expect(current == .int(42))
    }

    @Test("More than 100 levels of nesting makes write throw a Realm.Error and commits nothing")
    func tooDeepNestingThrows() throws {
        let realm = try arvMemoryRealm()
        let holder = ARVHolder()
        holder.value = .string("before")
        try realm.write { realm.add(holder) }
        for levels in [101, 150] {
            do {
                try realm.write {
                    holder.value = arvNestedLists(levels, innermost: .int(1))
                    holder.name = "changed"
                }
                Issue.record("\(levels) levels of nesting were accepted")
            } catch let error as Realm.Error {
                #expect(error.code == Realm.Error.invalidInput, "\(error)")
                #expect(error.message.contains("100"), "\(error.message)")
            }
            #expect(!realm.isInWriteTransaction)
            #expect(holder.value == .string("before"), "\(levels) levels: nothing of the failed write is committed")
            #expect(holder.name == "")
        }
    }

    @Test("101 nested lists are refused even when the innermost list is empty")
    func tooDeepEmptyNestingThrows() throws {
        let realm = try arvMemoryRealm()
        let holder = ARVHolder()
        try realm.write { realm.add(holder) }
        #expect(throws: Realm.Error.self) {
            try realm.write { holder.value = arvNestedLists(101, innermost: nil) }
        }
        #expect(arvDepth(holder.value) == 0, "stored \(arvDepth(holder.value)) levels")
    }

    @Test("Too deep nesting inside a List<AnyRealmValue> or a Map value is refused too")
    func tooDeepInCollections() throws {
        let realm = try arvMemoryRealm()
        let holder = ARVHolder()
        try realm.write { realm.add(holder) }
        #expect(throws: Realm.Error.self) {
            try realm.write { holder.list.append(arvNestedLists(150, innermost: .int(1))) }
        }
        #expect(holder.list.isEmpty)
        #expect(throws: Realm.Error.self) {
            try realm.write { holder.map["deep"] = arvNestedLists(150, innermost: .int(1)) }
        }
        #expect(holder.map.isEmpty)
    }

    @Test("A nested dictionary key starting with $ or containing . makes write throw")
    func nestedDictionaryKeys() throws {
        let realm = try arvMemoryRealm()
        let holder = ARVHolder()
        try realm.write { realm.add(holder) }
        for key in ["$dollar", "a.b"] {
            #expect(throws: Realm.Error.self, "key \(key)") {
                try realm.write { holder.value = .fromArray([.fromDictionary([key: .int(1)])]) }
            }
            #expect(holder.value == .none)
        }
        try realm.write { holder.value = .fromDictionary(["": .int(1), "a$": .int(2)]) }
        #expect(holder.value.dictionaryValue?[""] == .int(1))
        #expect(holder.value.dictionaryValue?["a$"] == .int(2))
    }

    @Test("Unmanaged AnyRealmValue collections keep their contents")
    func unmanagedNested() {
        let value = AnyRealmValue.fromDictionary(["list": .fromArray([.int(1), .string("two")])])
        let holder = ARVHolder()
        holder.value = value
        #expect(holder.value.dictionaryValue?["list"]?.listValue.map { Array($0) } == [.int(1), .string("two")])
        #expect(holder.value.dictionaryValue?.realm == nil)
    }
}
