import Foundation
@testable import Strata
import Testing

// Real models declare the conformance themselves (`class Item: Object, ObjectKeyIdentifiable`),
// as Realm Swift requires; `Object` must not conform already ("redundant conformance").

final class IdentifiedItem: Object, ObjectKeyIdentifiable {
    @Persisted(primaryKey: true) var key: Int
    @Persisted var name: String
}

final class IdentifiedNote: EmbeddedObject, ObjectKeyIdentifiable {
    @Persisted var text: String
}

final class IdentifiedHolder: Object, ObjectKeyIdentifiable {
    @Persisted var name: String
    @Persisted var note: IdentifiedNote?
}

/// A model that is `Identifiable` through its own `id` property, as many SwiftUI models are.
final class OwnIdentifiedItem: Object, Identifiable {
    @Persisted(primaryKey: true) var id: ObjectId
}

final class IdentifiedItemView: Projection<IdentifiedItem>, ObjectKeyIdentifiable {
    @Projected(\IdentifiedItem.name) var name
}

@Suite("ObjectKeyIdentifiable as in Realm Swift")
struct ObjectKeyIdentifiableTests {
    private func withRealmFile(_ body: (Realm.Configuration) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("strata-identifiable-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try body(Realm.Configuration(fileURL: directory.appendingPathComponent("ids.strata"),
                                     objectTypes: [IdentifiedItem.self, IdentifiedHolder.self, IdentifiedNote.self]))
    }

    @Test("Object is not Identifiable itself; a model declaring ObjectKeyIdentifiable is")
    func conformanceIsDeclaredByTheModel() {
        func isIdentifiable(_ type: Any.Type) -> Bool { type is any Identifiable.Type }
        #expect(!isIdentifiable(Object.self))
        #expect(isIdentifiable(IdentifiedItem.self))
        #expect(!isIdentifiable(EmbeddedObject.self))
        #expect(isIdentifiable(IdentifiedNote.self))
        #expect(isIdentifiable(IdentifiedItemView.self))
        let own = OwnIdentifiedItem()
        let id: ObjectId = own.id
        #expect(own.id == id)
    }

    @Test("A managed object's id is the same in every Realm instance of the file, across refreshes and writes")
    func idIsStableAcrossRealmInstances() throws {
        try withRealmFile { configuration in
            let first = try Realm(configuration: configuration)
            try first.write {
                first.add(IdentifiedItem(value: ["key": 1, "name": "a"]))
                first.add(IdentifiedItem(value: ["key": 2, "name": "b"]))
            }
            let one = try #require(first.object(ofType: IdentifiedItem.self, forPrimaryKey: 1))
            let two = try #require(first.object(ofType: IdentifiedItem.self, forPrimaryKey: 2))
            #expect(one.id != two.id)
            let before = one.id
            try first.write { one.name = "renamed" }
            first.refresh()
            #expect(one.id == before)

            let second = try Realm(configuration: configuration)
            #expect(second.object(ofType: IdentifiedItem.self, forPrimaryKey: 1)?.id == before)
            #expect(second.object(ofType: IdentifiedItem.self, forPrimaryKey: 2)?.id == two.id)
            #expect(second.objects(IdentifiedItem.self).filter("key == 1").first?.id == before)
            #expect(IdentifiedItemView(projecting: one).id == before)
        }
        try withRealmFile { configuration in
            // A reopened file gives the same ids.
            var ids: [UInt64] = []
            do {
                let realm = try Realm(configuration: configuration)
                try realm.write { realm.add(IdentifiedItem(value: ["key": 7])) }
                ids.append(realm.object(ofType: IdentifiedItem.self, forPrimaryKey: 7)!.id)
            }
            let reopened = try Realm(configuration: configuration)
            #expect(reopened.object(ofType: IdentifiedItem.self, forPrimaryKey: 7)?.id == ids[0])
        }
    }

    @Test("Embedded objects declaring ObjectKeyIdentifiable get distinct stable ids; unmanaged ones their identity")
    func embeddedAndUnmanagedIds() throws {
        try withRealmFile { configuration in
            let realm = try Realm(configuration: configuration)
            try realm.write {
                realm.add(IdentifiedHolder(value: ["name": "a", "note": ["text": "x"]]))
                realm.add(IdentifiedHolder(value: ["name": "b", "note": ["text": "y"]]))
            }
            let holders = realm.objects(IdentifiedHolder.self).sorted(byKeyPath: "name")
            let a = try #require(holders[0].note), b = try #require(holders[1].note)
            #expect(a.id != b.id)
            #expect(holders[0].note?.id == a.id)
            #expect(holders[0].id != holders[1].id)
        }
        let unmanaged = IdentifiedItem(), other = IdentifiedItem()
        #expect(unmanaged.id == unmanaged.id)
        #expect(unmanaged.id != other.id)
    }
}
