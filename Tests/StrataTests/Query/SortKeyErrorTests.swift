import Foundation
@testable import Strata
import StrataQuery
import Testing

final class SortKeyItem: Object {
    @Persisted var name: String
    @Persisted var tags: List<String>
}

/// Realm's messages for sort keys that cannot be sorted on (`sorted(byKeyPath:)` traps with them,
/// as Realm's exception carries them).
@Suite("Sort key errors")
struct SortKeyErrorTests {
    private static func sortError(_ keyPath: String) throws -> String? {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "sort-keys-\(UUID())",
                                                                 objectTypes: [SortKeyItem.self]))
        let results = realm.objects(SortKeyItem.self).with { $0.sort = [SortKey(QueryKeyPath(keyPath), ascending: true)] }
        let error = #expect(throws: Realm.Error.self) { try results.validate() }
        #expect(error?.code == .invalidQuery)
        return error?.message
    }

    @Test("a key path naming no property: 'Cannot sort on key path …: property 'Class.name' does not exist'")
    func missingProperty() throws {
        #expect(try Self.sortError("noSuchCol")
                == "Cannot sort on key path 'noSuchCol': property 'SortKeyItem.noSuchCol' does not exist")
    }

    @Test("a key path through a collection cannot be sorted on")
    func throughCollection() throws {
        #expect(try Self.sortError("tags")?.hasPrefix("Cannot sort on key path 'tags'") == true)
    }
}
