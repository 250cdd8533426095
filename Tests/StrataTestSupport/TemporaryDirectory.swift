#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import StrataSupport

/// A fresh directory made by `mkdtemp` under /tmp (or another parent).
public struct TemporaryDirectory: Sendable {
    /// The absolute path of the directory.
    public let path: String

    /// The directory's own name (unique per test), e.g. for fault injection by path fragment.
    public var name: String { String(path.split(separator: "/").last!) }

    /// Makes a new directory whose name starts with `prefix` in `parent`; ``remove()`` deletes it.
    public static func create(prefix: String = "strata-test", in parent: String = "/tmp") throws -> TemporaryDirectory {
        var template = Array("\(parent)/\(prefix)-XXXXXX".utf8CString)
        let path = try template.withUnsafeMutableBufferPointer { buffer -> String in
            guard let created = mkdtemp(buffer.baseAddress!) else {
                throw StrataError(.fileAccess, "mkdtemp failed", errno: errno)
            }
            return String(cString: created)
        }
        return TemporaryDirectory(path: path)
    }

    /// The path of `file` inside the directory.
    public func file(_ file: String) -> String { path + "/" + file }

    /// The names of the entries of the directory, sorted.
    public func entries() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path).sorted()
    }

    /// A parent for directories whose syncs need not reach a disk: /dev/shm (memory) when it
    /// exists, else /tmp. For tests that make many stores and model durability themselves.
    public static var memoryBackedParent: String {
        FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : "/tmp"
    }

    /// Deletes the directory and everything in it.
    public func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// Runs `body` with a fresh temporary directory and removes it afterwards, whether `body`
/// returns or throws.
public func withTemporaryDirectory<R>(
    prefix: String = "strata-test", _ body: (TemporaryDirectory) throws -> R
) throws -> R {
    let directory = try TemporaryDirectory.create(prefix: prefix)
    defer { directory.remove() }
    return try body(directory)
}
