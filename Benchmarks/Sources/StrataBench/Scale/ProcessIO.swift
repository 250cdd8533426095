import Foundation

/// This process's I/O counters from `/proc/self/io`.
struct ProcessIO {
    /// Bytes this process caused to be sent to storage (page-cache pages it dirtied).
    var writeBytes: Int
    /// Bytes passed to `write`-family system calls.
    var writeCalls: Int

    static var current: ProcessIO {
        let text = (try? String(contentsOfFile: "/proc/self/io", encoding: .utf8)) ?? ""
        func field(_ name: String) -> Int {
            for line in text.split(separator: "\n") where line.hasPrefix(name + ":") {
                return Int(line.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces)) ?? 0
            }
            return 0
        }
        return ProcessIO(writeBytes: field("write_bytes"), writeCalls: field("wchar"))
    }

    static func - (lhs: ProcessIO, rhs: ProcessIO) -> ProcessIO {
        ProcessIO(writeBytes: lhs.writeBytes - rhs.writeBytes, writeCalls: lhs.writeCalls - rhs.writeCalls)
    }
}

/// Drops the page cache of every file in `directory` (synced first), so that the next read of
/// them comes from the disk: a cold open without root's `drop_caches`.
func evictFromPageCache(directory: String) throws {
    for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
        let descriptor = open(directory + "/" + name, O_RDONLY)
        guard descriptor >= 0 else { continue }
        defer { close(descriptor) }
        _ = fsync(descriptor)
        _ = posix_fadvise(descriptor, 0, 0, Int32(POSIX_FADV_DONTNEED))
    }
}

/// The total size of the files in `directory`, in bytes.
func directoryBytes(_ directory: String) -> Int {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    return names.reduce(0) { total, name in
        let attributes = try? FileManager.default.attributesOfItem(atPath: directory + "/" + name)
        return total + ((attributes?[.size] as? Int) ?? 0)
    }
}
