#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import StrataEngine
@testable import StrataStorage
import StrataSupport
import Testing

/// A full disk: every write fails with `ENOSPC` for a while, then space returns.
///
/// What the store does (today's contract, which these tests pin down): the commit whose log
/// append hits `ENOSPC` fails with `fileAccess` carrying `ENOSPC`, and the store is poisoned:
/// every later write fails with `poisoned`, also after space returns, until the store is
/// reopened; readers keep every acknowledged commit. A checkpoint that hits `ENOSPC` (writing
/// its pages) fails with `fileAccess` and does not poison the store: the log stays valid, and
/// commits go on while their appends succeed. Reopening after space returns gives every
/// acknowledged commit and takes new ones.
@Suite("Disk full")
struct DiskFullTests {
    @Test("a commit that hits ENOSPC poisons the store until it is reopened; after space returns the reopened store has every acknowledged commit and takes new ones",
          arguments: [Durability.full, .normal])
    func commitOnFullDisk(durability: Durability) throws {
        try withTemporaryDirectory(prefix: "strata-diskfull") { directory in
            defer { StorageFaults.shared.removeRules(matching: directory.name) }
            let configuration = StoreConfiguration.file(directory.file("store.strata"), durability: durability)
            try withReleasedStore(configuration) { store in
                try Ledger.createTables(in: store)
                for id: Int64 in 1...5 { try Ledger.commit(id, to: store) }
                StorageFaults.shared.inject(.fail(errno: ENOSPC), on: .write, matching: directory.name, count: 1_000)
                let error = #expect(throws: StrataError.self) { try Ledger.commit(6, to: store) }
                #expect(error?.code == .fileAccess)
                #expect(error?.errno == ENOSPC)
                let whileFull = #expect(throws: StrataError.self) { try Ledger.commit(7, to: store) }
                #expect(whileFull?.code == .poisoned)

                StorageFaults.shared.removeRules(matching: directory.name)
                let afterSpaceReturns = #expect(throws: StrataError.self) { try Ledger.commit(8, to: store) }
                #expect(afterSpaceReturns?.code == .poisoned, "poisoned until reopened")
                let contents = Ledger.contents(of: store.currentSnapshot)
                #expect(contents.commits == [0, 1, 2, 3, 4, 5])
            }
            try withReleasedStore(configuration) { store in
                let contents = Ledger.contents(of: store.currentSnapshot)
                #expect(contents.commits == [0, 1, 2, 3, 4, 5])
                #expect(contents.problems.isEmpty)
                try Ledger.commit(9, to: store)
            }
            try withReleasedStore(configuration) { store in
                #expect(Ledger.contents(of: store.currentSnapshot).commits == [0, 1, 2, 3, 4, 5, 9])
            }
        }
    }

    @Test("a checkpoint that hits ENOSPC fails with fileAccess, leaves the store writable and loses nothing")
    func checkpointOnFullDisk() throws {
        try withTemporaryDirectory(prefix: "strata-diskfull") { directory in
            defer { StorageFaults.shared.removeRules(matching: directory.name) }
            let configuration = StoreConfiguration.file(directory.file("store.strata"), durability: .full)
            try withReleasedStore(configuration) { store in
                try Ledger.createTables(in: store)
                for id: Int64 in 1...5 { try Ledger.commit(id, to: store) }
                StorageFaults.shared.inject(.fail(errno: ENOSPC), on: .write, matching: directory.name + "/store.strata$",
                                            count: 1_000)
                let error = #expect(throws: StrataError.self) { try store.checkpoint() }
                #expect(error?.code == .fileAccess)
                #expect(error?.errno == ENOSPC)
                try Ledger.commit(6, to: store)
                StorageFaults.shared.removeRules(matching: directory.name + "/store.strata$")
                try store.checkpoint()
                try Ledger.commit(7, to: store)
            }
            try withReleasedStore(configuration) { store in
                let contents = Ledger.contents(of: store.currentSnapshot)
                #expect(contents.commits == [0, 1, 2, 3, 4, 5, 6, 7])
                #expect(contents.problems.isEmpty)
            }
        }
    }
}
