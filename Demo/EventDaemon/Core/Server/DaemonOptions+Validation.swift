import Foundation

extension DaemonOptions {
    /// The longest Unix socket path (`sun_path` holds 108 bytes with the terminating NUL).
    static let maximumSocketPathBytes = 107

    /// Checks the options before anything starts, so that a mistake is one clear error.
    ///
    /// - Throws: ``DaemonError`` for a port outside 0...65535, a host that is not an IPv4
    ///   or IPv6 address, a data file or socket whose directory does not exist, or a socket path longer
    ///   than 107 bytes; ``DaemonConfigError`` for a configuration ``DaemonConfig/validate()``
    ///   refuses.
    public func validate() throws {
        guard (0...65_535).contains(port) else { throw DaemonError("--port \(port) is out of range: it must be 0...65535") }
        guard AccessControl.isIPAddress(host) else {
            throw DaemonError("--host '\(host)' is not an IPv4 or IPv6 address")
        }
        try Self.requireDirectory(of: dataPath, option: "--data")
        if let socketPath {
            guard !socketPath.isEmpty, socketPath.utf8.count <= Self.maximumSocketPathBytes else {
                throw DaemonError("--socket path must be 1...\(Self.maximumSocketPathBytes) bytes long")
            }
            try Self.requireDirectory(of: socketPath, option: "--socket")
        }
        try config.validate()
    }

    private static func requireDirectory(of path: String, option: String) throws {
        guard !path.isEmpty else { throw DaemonError("\(option) must not be empty") }
        let directory = (path as NSString).deletingLastPathComponent
        var isDirectory: ObjCBool = false
        let checked = directory.isEmpty ? "." : directory
        guard FileManager.default.fileExists(atPath: checked, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw DaemonError("\(option) \(path): the directory \(checked) does not exist")
        }
    }
}
