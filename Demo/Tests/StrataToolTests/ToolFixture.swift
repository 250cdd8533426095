import Foundation
import Strata

final class ToolOwner: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
    @Persisted(indexed: true) var city: String
    @Persisted var born: Date
    @Persisted var score: Double?
    @Persisted var photo: Data
    @Persisted var tags: List<String>
    @Persisted var pets: List<ToolPet>
    @Persisted var address: ToolAddress?
    @Persisted var extra: AnyRealmValue
    @Persisted var counts: Map<String, Int>
}

final class ToolPet: Object {
    @Persisted(primaryKey: true) var name: String
    @Persisted var age: Int
    @Persisted(originProperty: "pets") var owners: LinkingObjects<ToolOwner>
}

final class ToolAddress: EmbeddedObject {
    @Persisted var street: String
    @Persisted var city: String
}

/// A store file the tests make with the models above, in a directory of its own, closed before
/// the tool runs on it.
struct ToolFixture {
    let directory: URL
    var path: String { directory.appendingPathComponent("tool.strata").path }
    var url: URL { URL(fileURLWithPath: path) }

    static let types: [ObjectBase.Type] = [ToolOwner.self, ToolPet.self, ToolAddress.self]

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-tool-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    func configuration(at path: String? = nil) -> Realm.Configuration {
        Realm.Configuration(fileURL: URL(fileURLWithPath: path ?? self.path), objectTypes: Self.types)
    }

    /// Writes `owners` owners (two pets shared among them, an address on the even ones) and
    /// closes the store.
    func seed(owners: Int = 3) throws {
        try autoreleasedRealm { realm in
            try realm.write {
                let rex = realm.create(ToolPet.self, value: ["name": "Rex", "age": 3])
                let tom = realm.create(ToolPet.self, value: ["name": "Tom, the \"cat\"", "age": 7])
                for id in 1...owners {
                    let owner = realm.create(ToolOwner.self, value: [
                        "id": id, "name": "Owner \(id)", "city": id % 2 == 0 ? "Paris" : "Oslo",
                        "born": Date(timeIntervalSince1970: 1_000_000_000 + Double(id) + 0.123456789),
                        "score": id == 2 ? NSNull() : Double(id) * 1.5, "photo": Data([UInt8(id), 0, 255]),
                        "tags": ["t\(id)", "common"], "counts": ["a": id],
                    ] as [String: Any])
                    owner.pets.append(rex)
                    if id.isMultiple(of: 3) { owner.pets.append(tom) }
                    if id.isMultiple(of: 2) { owner.address = ToolAddress(value: ["street": "Rue \(id)", "city": "Paris"]) }
                    owner.extra = id == 1 ? .string("first") : .int(id)
                }
            }
        }
    }

    /// Opens the fixture's store, runs `body`, and closes it (every Realm of it released).
    func autoreleasedRealm<T>(at path: String? = nil, _ body: (Realm) throws -> T) throws -> T {
        try body(try Realm(configuration: configuration(at: path)))
    }

    func remove() {
        try? FileManager.default.removeItem(at: directory)
    }
}
