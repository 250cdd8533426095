import Foundation
@_spi(StrataTool) import Strata

/// A failure the tool reports in one line (`strata: error: …`) with its exit status.
struct ToolError: Error, CustomStringConvertible {
    let description: String
    /// 1 for a failed operation, 2 for a store that does not check out (`verify`), 64 for a
    /// misuse of the command line.
    var status: Int32 = 1

    init(_ description: String, status: Int32 = 1) {
        self.description = description
        self.status = status
    }
}

/// Opening a store for a command, with the errors an operator can act on.
enum StoreOpening {
    /// The store at `path`, opened without model classes.
    static func inspector(_ path: String, readOnly: Bool) throws -> StoreInspector {
        try checkExists(path)
        do {
            return try StoreInspector(fileURL: URL(fileURLWithPath: path), readOnly: readOnly)
        } catch {
            throw explained(error, path: path)
        }
    }

    /// A ``ToolError`` for an error of opening `path`: another process's hold names its pid.
    static func explained(_ error: any Error, path: String) -> any Error {
        guard let realmError = error as? Realm.Error else { return error }
        if realmError.code == .alreadyOpen {
            let holder = holderPID(of: path).map { " (pid \($0))" } ?? ""
            return ToolError("'\(path)' is open in another process\(holder); stop it, or copy the store with a tool "
                             + "the process offers, and try again")
        }
        return ToolError(realmError.message)
    }

    /// Fails with a clear message when nothing is at `path`.
    static func checkExists(_ path: String) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ToolError("no store at '\(path)'")
        }
        if isDirectory.boolValue { throw ToolError("'\(path)' is a directory, not a store file") }
    }

    /// The process holding the store's lock file, as the kernel reports the holder of its
    /// record lock (`F_GETLK`); nil when no process holds it or it cannot be told.
    static func holderPID(of path: String) -> pid_t? {
        let descriptor = open(path + ".lock", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = 0
        lock.l_len = 0
        guard fcntl(descriptor, F_GETLK, &lock) == 0, lock.l_type != Int16(F_UNLCK), lock.l_pid > 0 else { return nil }
        return lock.l_pid
    }
}
