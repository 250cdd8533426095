#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
@testable import StrataStorage
import Testing

/// One kind of injected I/O fault and the operation it hits.
struct FaultCase: Sendable, CustomTestStringConvertible {
    var name: String
    var fault: StorageFault
    var operation: StorageOperation

    var testDescription: String { name }

    /// The errno the operation's error must carry, or nil when the operation must succeed.
    var expectedErrno: Int32? {
        switch fault {
        case .fail(let code), .shortWrite(let code): code
        case .partialWrite: nil
        }
    }

    static let all: [FaultCase] = [
        FaultCase(name: "EIO on write", fault: .fail(errno: EIO), operation: .write),
        FaultCase(name: "ENOSPC on write", fault: .fail(errno: ENOSPC), operation: .write),
        FaultCase(name: "short write, then ENOSPC", fault: .shortWrite(errno: ENOSPC), operation: .write),
        FaultCase(name: "short write, then EIO", fault: .shortWrite(errno: EIO), operation: .write),
        FaultCase(name: "pwrite returns short (the loop writes the rest)", fault: .partialWrite, operation: .write),
        FaultCase(name: "EIO on fdatasync", fault: .fail(errno: EIO), operation: .sync),
        FaultCase(name: "EIO on rename", fault: .fail(errno: EIO), operation: .rename),
        FaultCase(name: "ENOSPC on rename", fault: .fail(errno: ENOSPC), operation: .rename),
        FaultCase(name: "EIO on directory fsync", fault: .fail(errno: EIO), operation: .directorySync),
        FaultCase(name: "ENOSPC on open/create", fault: .fail(errno: ENOSPC), operation: .open),
        FaultCase(name: "EACCES on open/create", fault: .fail(errno: EACCES), operation: .open),
        FaultCase(name: "EIO on unlink", fault: .fail(errno: EIO), operation: .remove),
        FaultCase(name: "EIO on ftruncate", fault: .fail(errno: EIO), operation: .truncate),
    ]
}
