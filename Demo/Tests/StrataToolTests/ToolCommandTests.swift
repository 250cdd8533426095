import Foundation
import Strata
import Testing

/// `strata`, run as a separate process against stores these tests write with model classes the
/// tool does not have.
@Suite("strata: info, query, export, import")
struct ToolCommandTests {
    @Test("info names every class with its count, properties, types, keys, indexes and backlinks")
    func info() throws {
        let fixture = try ToolFixture()
        defer { fixture.remove() }
        try fixture.seed(owners: 4)
        let text = try ToolProcess.run(["info", fixture.path, "--format", "text"])
        #expect(text.status == 0, "\(text.error)")
        #expect(text.output.contains("class ToolOwner: 4 objects"), "\(text.output)")
        #expect(text.output.contains("class ToolPet: 2 objects") && text.output.contains("embedded class ToolAddress: 2 objects"))
        #expect(text.output.contains("linked from: ToolOwner.pets"), "\(text.output)")
        let json = try ToolProcess.run(["info", fixture.path])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        let classes = try #require(report["classes"] as? [[String: Any]])
        let owner = try #require(classes.first { $0["name"] as? String == "ToolOwner" })
        #expect(owner["primaryKey"] as? String == "id" && owner["count"] as? Int == 4)
        let types = Dictionary(uniqueKeysWithValues: (owner["properties"] as? [[String: Any]] ?? []).map {
            ($0["name"] as? String ?? "", $0["type"] as? String ?? "")
        })
        #expect(types["pets"] == "array<ToolPet>" && types["address"] == "ToolAddress?" && types["score"] == "double?")
        #expect(types["counts"] == "dictionary<string, int>" && types["extra"] == "mixed" && types["born"] == "date")
        let indexed = (owner["properties"] as? [[String: Any]] ?? []).first { $0["name"] as? String == "city" }
        #expect(indexed?["indexed"] as? Bool == true)
        #expect((report["bytes"] as? [String: Any])?["onDisk"] as? Int ?? 0 > 0)
    }

    @Test("query filters with arguments, sorts, limits, and prints NDJSON, JSON, CSV or a table that fits the width")
    func query() throws {
        let fixture = try ToolFixture()
        defer { fixture.remove() }
        try fixture.seed(owners: 6)
        let ndjson = try ToolProcess.run(["query", fixture.path, "ToolOwner", "city == $0 AND id > $1", "--arg", "Paris",
                                          "--arg", "2", "--sort", "id:desc"])
        #expect(ndjson.status == 0, "\(ndjson.error)")
        let rows = try ndjson.lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        #expect(rows.map { $0["id"] as? Int } == [6, 4])
        #expect(rows.first?["pets"] as? [String] == ["Rex", "Tom, the \"cat\""], "links print as primary keys")
        #expect((rows.first?["address"] as? [String: Any])?["street"] as? String == "Rue 6", "embedded objects as JSON")
        #expect(rows.last?["born"] as? String == "2001-09-09T01:46:44.123456835Z" || (rows.last?["born"] as? String)?.hasPrefix("2001-09-09T01:46:44.1234") == true)
        #expect(ndjson.lines.first?.hasPrefix(#"{"id":6,"name":"Owner 6","city":"Paris","#) == true, "keys in property order")

        let limited = try ToolProcess.run(["query", fixture.path, "ToolOwner", "--sort", "name", "--limit", "2", "--format", "json"])
        let array = try #require(try JSONSerialization.jsonObject(with: Data(limited.output.utf8)) as? [[String: Any]])
        #expect(array.map { $0["name"] as? String } == ["Owner 1", "Owner 2"])

        let csv = try ToolProcess.run(["query", fixture.path, "ToolPet", "--format", "csv", "--sort", "name"])
        #expect(csv.output == "name,age\r\nRex,3\r\n\"Tom, the \"\"cat\"\"\",7\r\n")

        let table = try ToolProcess.run(["query", fixture.path, "ToolOwner", "--format", "table"], columns: 70)
        #expect(table.status == 0)
        #expect(table.lines.allSatisfy { $0.count <= 70 }, "\(table.output)")
        #expect(table.lines.first?.hasPrefix("id") == true && table.lines.last == "(6 objects)", "\(table.output)")
    }

    @Test("a bad query, an unknown class or a missing store is one line on standard error and a failing status")
    func queryErrors() throws {
        let fixture = try ToolFixture()
        defer { fixture.remove() }
        try fixture.seed()
        let bad = try ToolProcess.run(["query", fixture.path, "ToolOwner", "city ==="])
        #expect(bad.status == 1 && bad.error.hasPrefix("strata: error: ") && bad.error.split(separator: "\n").count == 1,
                "\(bad.error)")
        let unknownProperty = try ToolProcess.run(["query", fixture.path, "ToolOwner", "nope == 1"])
        #expect(unknownProperty.status == 1 && unknownProperty.error.contains("nope"), "\(unknownProperty.error)")
        let unknownClass = try ToolProcess.run(["query", fixture.path, "Nothing"])
        #expect(unknownClass.status == 1 && unknownClass.error.contains("no class 'Nothing'"), "\(unknownClass.error)")
        let missing = try ToolProcess.run(["info", fixture.path + ".missing"])
        #expect(missing.status == 1 && missing.error.contains("no store at"), "\(missing.error)")
        let usage = try ToolProcess.run(["query", fixture.path, "ToolOwner", "--limit", "-1"])
        #expect(usage.status == 64, "\(usage.error)")
    }

    @Test("--version prints the release, for strata and strata-eventd (with its protocol's version)")
    func versions() throws {
        let tool = try ToolProcess.run(["--version"])
        #expect(tool.status == 0 && tool.output == Strata.version + "\n", "\(tool.output)")
        let daemon = try ToolProcess.run(["--version"], program: "strata-eventd")
        #expect(daemon.status == 0 && daemon.output == "\(Strata.version) (protocol 2)\n", "\(daemon.output)")
    }

    @Test("a store held by another process is refused in one line naming that process's pid")
    func heldStore() throws {
        let fixture = try ToolFixture()
        defer { fixture.remove() }
        try fixture.seed()
        let realm = try Realm(configuration: fixture.configuration())
        let result = try ToolProcess.run(["info", fixture.path])
        #expect(result.status == 1, "\(result.error)")
        #expect(result.error.contains("is open in another process (pid \(getpid()))"), "\(result.error)")
        _ = realm
    }

    @Test("export then import into an empty store gives the same objects, links and embedded objects included")
    func exportImportRoundTrip() throws {
        let fixture = try ToolFixture()
        defer { fixture.remove() }
        try fixture.seed(owners: 5)
        let copyPath = fixture.directory.appendingPathComponent("copy.strata").path
        try fixture.autoreleasedRealm(at: copyPath) { _ in }  // an empty store with the schema
        for className in ["ToolPet", "ToolOwner"] {
            let exported = fixture.directory.appendingPathComponent("\(className).ndjson").path
            let export = try ToolProcess.run(["export", fixture.path, "--class", className, "--format", "ndjson",
                                              "--output", exported])
            #expect(export.status == 0, "\(export.error)")
            let imported = try ToolProcess.run(["import", copyPath, "--class", className, "--format", "ndjson",
                                                "--input", exported])
            #expect(imported.status == 0, "\(imported.error)")
        }
        let original = try ToolProcess.run(["export", fixture.path, "--format", "json"])
        let copied = try ToolProcess.run(["export", copyPath, "--format", "json"])
        #expect(original.status == 0 && !original.output.isEmpty)
        #expect(original.output == copied.output)
        try fixture.autoreleasedRealm(at: copyPath) { realm in
            let owner = try #require(realm.object(ofType: ToolOwner.self, forPrimaryKey: 3))
            #expect(owner.pets.map(\.name) == ["Rex", "Tom, the \"cat\""] && owner.extra == .int(3))
            #expect(owner.born == Date(timeIntervalSince1970: 1_000_000_003.123456789) && owner.photo == Data([3, 0, 255]))
            #expect(realm.object(ofType: ToolOwner.self, forPrimaryKey: 4)?.address?.street == "Rue 4")
            #expect(realm.object(ofType: ToolPet.self, forPrimaryKey: "Rex")?.owners.count == 5)
        }
    }

    @Test("an import with bad objects names each one's line and writes nothing; --update updates existing objects")
    func importRefusesWhole() throws {
        let fixture = try ToolFixture()
        defer { fixture.remove() }
        try fixture.seed(owners: 2)
        let input = """
        {"id": 10, "name": "New", "pets": ["Rex"]}
        {"id": 11, "name": 5}

        {"id": 12, "pets": ["Nobody"]}
        {"id": 13, "colour": "red"}
        {"id": 1, "name": "Again"}
        not json
        """
        let refused = try ToolProcess.run(["import", fixture.path, "--class", "ToolOwner", "--format", "ndjson"],
                                          input: input.replacingOccurrences(of: "not json", with: ""))
        #expect(refused.status == 1, "\(refused.error)")
        #expect(refused.error.contains("line 2: name takes a string, not 5"), "\(refused.error)")
        #expect(refused.error.contains("line 4: pets: no 'ToolPet' has the primary key \"Nobody\""), "\(refused.error)")
        #expect(refused.error.contains("line 5: 'ToolOwner' has no property 'colour'"), "\(refused.error)")
        #expect(refused.error.contains("line 6: an object with primary key 1 exists"), "\(refused.error)")
        #expect(refused.error.contains("nothing imported: 4 objects refused"), "\(refused.error)")
        let notJSON = try ToolProcess.run(["import", fixture.path, "--class", "ToolOwner", "--format", "ndjson"], input: input)
        #expect(notJSON.status == 1 && notJSON.error.contains("line 7 is not JSON"), "\(notJSON.error)")
        try fixture.autoreleasedRealm { realm in #expect(realm.objects(ToolOwner.self).count == 2) }

        let update = try ToolProcess.run(["import", fixture.path, "--class", "ToolOwner", "--format", "json", "--update",
                                          "modified"], input: #"[{"id": 1, "name": "Renamed"}, {"id": 3, "name": "Third"}]"#)
        #expect(update.status == 0 && update.error.contains("imported 1 new and updated 1"), "\(update.error)")
        try fixture.autoreleasedRealm { realm in
            #expect(realm.object(ofType: ToolOwner.self, forPrimaryKey: 1)?.name == "Renamed")
            #expect(realm.object(ofType: ToolOwner.self, forPrimaryKey: 1)?.city == "Oslo", "properties not given are kept")
            #expect(realm.object(ofType: ToolOwner.self, forPrimaryKey: 3)?.name == "Third")
        }
    }
}
