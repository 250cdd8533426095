import Foundation
import Strata
import StrataTestSupport
import Testing

final class VerifiedItem: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var payload: String
}

/// `Realm.verify(configuration:)` and `Realm.salvage(configuration:to:)`: damage reported as
/// values naming the file and page, never a stopped process; what is readable copied out.
@Suite("Realm.verify and Realm.salvage")
struct RealmVerifyTests {
    private static func configuration(_ path: String) -> Realm.Configuration {
        Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [VerifiedItem.self])
    }

    /// A closed Realm at `path` of 2,000 items, all in its page file (a compact copy).
    private static func makeRealm(at path: String) throws {
        let scratch = path + ".scratch"
        try {
            let realm = try Realm(configuration: configuration(scratch))
            try realm.write {
                for id in 0..<2_000 {
                    realm.add(VerifiedItem(value: ["id": id, "payload": String(repeating: "v", count: 100)]))
                }
            }
            try realm.writeCopy(toFile: URL(fileURLWithPath: path))
        }()
        try Realm.deleteFiles(for: configuration(scratch))
    }

    @Test("an intact Realm verifies intact; a damaged one lists each damaged page with the file and what is wrong")
    func verify() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("items.strata")
            try Self.makeRealm(at: path)
            let intact = try Realm.verify(configuration: Self.configuration(path))
            #expect(intact.isIntact && intact.pagesChecked > 10 && intact.damagedPages.isEmpty)
            #expect(intact.description.hasPrefix("intact: "))
            let damaged = try damageLeafPagesOfLastCheckpoint(storeAt: path, count: 2)
            let report = try Realm.verify(configuration: Self.configuration(path))
            #expect(!report.isIntact)
            #expect(report.damagedPages == damaged.sorted())
            for damage in report.damage {
                #expect(damage.fileURL.path == path)
                #expect(damage.offset == damage.page.map { $0 * UInt64(report.pageSize) })
                #expect(damage.description.contains("checksum mismatch"))
            }
        }
    }

    @Test("salvage writes a new Realm of every readable object and counts the lost ones")
    func salvage() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("items.strata")
            try Self.makeRealm(at: path)
            _ = try damageLeafPagesOfLastCheckpoint(storeAt: path, count: 2)
            let rescued = directory.file("rescued.strata")
            let report = try Realm.salvage(configuration: Self.configuration(path), to: Self.configuration(rescued))
            #expect(report.objectsSalvaged + report.objectsLost == 2_000)
            #expect(report.objectsSalvagedByType.keys.sorted() == ["VerifiedItem"] && report.objectsLost > 0)
            #expect(report.destinationURL.path == rescued)
            let realm = try Realm(configuration: Self.configuration(rescued))
            #expect(realm.objects(VerifiedItem.self).count == report.objectsSalvaged)
            #expect(realm.objects(VerifiedItem.self).allSatisfy { $0.payload == String(repeating: "v", count: 100) })
            // A second salvage into the same file is refused: it holds a Realm.
            #expect(throws: Realm.Error.self) {
                try Realm.salvage(configuration: Self.configuration(path), to: Self.configuration(rescued))
            }
        }
    }

    @Test("verify refuses an open Realm (alreadyOpen), a missing one (fileNotFound) and an in-memory one (fail)")
    func refusals() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("open.strata")
            let realm = try Realm(configuration: Self.configuration(path))
            func code(_ body: () throws -> Realm.VerificationReport) -> Realm.Error.Code? {
                do {
                    _ = try body()
                    return nil
                } catch {
                    return (error as? Realm.Error)?.code
                }
            }
            #expect(code { try Realm.verify(configuration: Self.configuration(path)) } == .alreadyOpen)
            withExtendedLifetime(realm) {}
            #expect(code { try Realm.verify(configuration: Self.configuration(directory.file("none.strata"))) }
                    == .fileNotFound)
            let inMemory = Realm.Configuration(inMemoryIdentifier: "verify")
            #expect(code { try Realm.verify(configuration: inMemory) } == .fail)
        }
    }
}
