import EcosystemNames
import Foundation
import RealmSwift
import Testing

/// Each ecosystem name in a type position: a name that `import RealmSwift` also brought in
/// would make this declaration fail to compile ("ambiguous for type lookup").
private struct EcosystemTypes {
    var eventLoop: EventLoop?, eventLoopError: EventLoopError?, eventLoopGroup: EventLoopGroup?
    var eventLoopFuture: EventLoopFuture?, scheduled: Scheduled?, timeAmount: TimeAmount?
    var channel: Channel?, byteBuffer: ByteBuffer?, scheduler: Scheduler?, logger: Logger?
    var value: Value?, row: Row?, table: Table?, instruction: Instruction?, snapshot: Snapshot?
    var store: Store?, changeset: Changeset?, transaction: Transaction?, timestamp: Timestamp?
    var column: Column?, link: Link?

    /// The types the properties above were declared with, as the compiler resolved them.
    static var resolved: [Any.Type] {
        Mirror(reflecting: EcosystemTypes()).children.map { type(of: $0.value) }
    }
}

/// What `import RealmSwift` (and so `import Strata`) brings into a file: Realm's API and Strata's
/// documented additions, none of whose names collide with swift-nio's, swift-log's, OpenCombine's or an
/// application's own (`EcosystemNames` declares those; naming them here unqualified compiles only
/// while Strata exports none of them).
@Suite("Public surface")
struct PublicSurfaceTests {
    @Test("names swift-nio, swift-log, OpenCombine and applications use resolve to their own types beside import RealmSwift")
    func ecosystemNamesDoNotCollide() {
        let types = EcosystemTypes.resolved
        #expect(types.count == 21)
        for type in types {
            #expect(String(reflecting: type).hasPrefix("Swift.Optional<EcosystemNames."), "\(String(reflecting: type))")
        }
    }

    @Test("Strata's additions are public under names of their own: the libuv loop, the StrataScheduler seam, durability")
    func stratasAdditions() throws {
        let loop = try LibUVEventLoop.startThread(name: "public-surface")
        defer { loop.shutdownAndWait() }
        let scheduler: any StrataScheduler = loop
        #expect(!scheduler.isOnSchedulerThread)
        let configuration = Realm.Configuration(inMemoryIdentifier: UUID().uuidString, durability: Durability.normal)
        #expect(configuration.durability == .normal)
        #expect(String(reflecting: ObjectId.self) == "StrataValues.ObjectId")
    }
}
