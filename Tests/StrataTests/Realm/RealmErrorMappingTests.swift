#if canImport(Glibc)
import Glibc
#endif
import Foundation
@testable import Strata
import StrataSupport
import Testing

/// How engine failures reach the user as Realm's codes (as Realm Core reports the same failure).
@Suite("Realm.Error mapping of engine errors")
struct RealmErrorMappingTests {
    @Test("engine errors map to Realm's codes, a full disk to outOfDiskSpace and a damaged file to invalidDatabase",
          arguments: [
              (StrataError(.fileNotFound, "x"), Realm.Error.Code.fileNotFound),
              (StrataError(.fileAccess, "x", errno: EIO), .fileAccess),
              (StrataError(.fileAccess, "x", errno: EACCES), .filePermissionDenied),
              (StrataError(.fileAccess, "x", errno: EPERM), .filePermissionDenied),
              (StrataError(.fileAccess, "x", errno: EROFS), .filePermissionDenied),
              (StrataError(.fileAccess, "x", errno: EEXIST), .fileExists),
              (StrataError(.fileAccess, "x", errno: ENOSPC), .outOfDiskSpace),
              (StrataError(.poisoned, "x", errno: ENOSPC), .outOfDiskSpace),
              (StrataError(.poisoned, "x", errno: EIO), .fileAccess),
              (StrataError(.poisoned, "x"), .fileAccess),
              (StrataError(.invalidFileFormat, "x"), .invalidDatabase),
              (StrataError(.corruptFile, "x", offset: 12), .invalidDatabase),
              (StrataError(.alreadyOpenInAnotherProcess, "x"), .alreadyOpen),
              (StrataError(.duplicatePrimaryKey, "x"), .primaryKeyExists),
              (StrataError(.invalidInput, "x"), .invalidInput),
              (StrataError(.schemaMismatch, "x"), .schemaMismatch),
              (StrataError(.readOnly, "x"), .readOnly),
              (StrataError(.tooManyActiveVersions, "x"), .tooManyActiveVersions),
              (StrataError(.wrongState, "x"), .wrongTransactionState),
              (StrataError(.init("somethingNew"), "x"), .fail),
          ])
    func mapping(engine: StrataError, expected: Realm.Error.Code) {
        let error = Realm.Error(engine)
        #expect(error.code == expected, "\(engine)")
        #expect(error.underlying?.code == engine.code)
    }

    @Test("a damaged file's error keeps the offset in its message and the engine code in underlying")
    func corruptFileKeepsDetail() {
        let error = Realm.Error(StrataError(.corruptFile, "bad checksum", path: "/tmp/x.realm", offset: 4096))
        #expect(error.code == .invalidDatabase)
        #expect(error.message.contains("at offset 4096"))
        #expect(error.underlying?.code == .corruptFile)
        #expect(error.fileURL?.path == "/tmp/x.realm")
    }
}
