import Foundation
import Strata
import Testing

@Suite("strata: verify, compact, copy")
struct ToolMaintenanceTests {
    @Test("verify passes an intact store with status 0, and names the damaged page of a damaged one with status 2")
    func verify() throws {
        let fixture = try ToolFixture()
        defer { fixture.remove() }
        try fixture.seed(owners: 200)
        // A checkpoint writes the objects into the page file (the log alone would be replayed).
        _ = try ToolProcess.run(["compact", fixture.path])
        let intact = try ToolProcess.run(["verify", fixture.path])
        #expect(intact.status == 0, "\(intact.error)")
        #expect(intact.output.hasPrefix("ok: ") && intact.output.contains("the indexes and backlinks of 302 objects agree"),
                "\(intact.output)")

        // Damage a page past the header: flip bytes in the middle of the page file.
        let handle = try #require(FileHandle(forUpdatingAtPath: fixture.path))
        let size = try handle.seekToEnd()
        try handle.seek(toOffset: size / 2)
        try handle.write(contentsOf: Data(repeating: 0xA5, count: 64))
        try handle.close()
        let damaged = try ToolProcess.run(["verify", fixture.path])
        #expect(damaged.status == 2, "\(damaged.output) \(damaged.error)")
        #expect(damaged.output.contains("damaged: tool.strata, page "), "\(damaged.output)")
        #expect(damaged.error.contains("damaged place"), "\(damaged.error)")
    }

    @Test("compact reports the size before and after; copy writes a store with the same objects and refuses an existing file")
    func compactAndCopy() throws {
        let fixture = try ToolFixture()
        defer { fixture.remove() }
        try fixture.seed(owners: 50)
        try fixture.autoreleasedRealm { realm in
            try realm.write { realm.delete(realm.objects(ToolOwner.self).filter("id > 5")) }
        }
        let compacted = try ToolProcess.run(["compact", fixture.path])
        #expect(compacted.status == 0 && compacted.output.contains("compacted '"), "\(compacted.error)")
        let destination = fixture.directory.appendingPathComponent("backup.strata").path
        let copy = try ToolProcess.run(["copy", fixture.path, destination])
        #expect(copy.status == 0, "\(copy.error)")
        let original = try ToolProcess.run(["export", fixture.path, "--format", "json"])
        let backup = try ToolProcess.run(["export", destination, "--format", "json"])
        #expect(original.output == backup.output && original.output.contains("Owner 5"))
        let again = try ToolProcess.run(["copy", fixture.path, destination])
        #expect(again.status == 1 && again.error.contains("exists"), "\(again.error)")
        let verified = try ToolProcess.run(["verify", destination])
        #expect(verified.status == 0, "\(verified.output) \(verified.error)")
    }
}
