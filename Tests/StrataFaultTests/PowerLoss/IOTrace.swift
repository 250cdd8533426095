import Foundation
@testable import StrataStorage
import StrataSupport

/// One entry of an I/O trace: a file operation inside the traced directory (paths reduced to
/// file names; the directory itself is ""), or a commit the workload saw acknowledged.
enum TraceEvent: Equatable, Sendable {
    case opened(String, truncated: Bool)
    case wrote(String, offset: UInt64, bytes: [UInt8])
    case syncStarted(String)
    case syncFinished(String)
    /// A sync of the file failed: what it was to cover may be lost even if a later sync succeeds.
    case syncFailed(String)
    case directorySyncStarted
    case directorySyncFinished
    case renamed(String, to: String)
    case removed(String)
    case truncated(String, length: UInt64)
    /// `store.write` returned for the commit with this id.
    case acknowledged(Int64)
}

/// Records the file operations of one directory, plus the acknowledgements the workload notes,
/// in one order: an event's index is its position in time.
///
/// One process-wide ``StorageObserver`` is installed while any recorder is active and hands
/// each event to every active recorder, so tests that trace different directories can run at
/// the same time.
final class IOTraceRecorder: Sendable {
    private let directory: String
    private let events = LockedValueBox<[TraceEvent]>([])

    private init(directory: String) { self.directory = directory }

    private static let active = LockedValueBox<[String: IOTraceRecorder]>([:])

    private final class Dispatcher: StorageObserver {
        func storage(_ event: StorageEvent) {
            for recorder in IOTraceRecorder.active.withLockedValue({ Array($0.values) }) { recorder.storage(event) }
        }
    }

    /// Runs `body` with a recorder active for `directory` and returns the trace.
    static func record(directory: String, _ body: (IOTraceRecorder) throws -> Void) rethrows -> [TraceEvent] {
        let recorder = IOTraceRecorder(directory: directory)
        active.withLockedValue { active in
            if active.isEmpty { StorageFaults.shared.install(observer: Dispatcher()) }
            active[directory] = recorder
        }
        defer {
            active.withLockedValue { active in
                active[directory] = nil
                if active.isEmpty { StorageFaults.shared.install(observer: nil) }
            }
        }
        try body(recorder)
        return recorder.events.withLockedValue { $0 }
    }

    /// Notes that the commit `id` was acknowledged (call right after `store.write` returns).
    func acknowledge(_ id: Int64) {
        events.withLockedValue { $0.append(.acknowledged(id)) }
    }

    private func storage(_ event: StorageEvent) {
        let traced: TraceEvent?
        switch event {
        case .opened(let path, let truncated): traced = name(path).map { .opened($0, truncated: truncated) }
        case .wrote(let path, let offset, let bytes): traced = name(path).map { .wrote($0, offset: offset, bytes: bytes) }
        case .started(.directorySync, let path): traced = path == directory ? .directorySyncStarted : nil
        case .finished(.directorySync, let path): traced = path == directory ? .directorySyncFinished : nil
        case .failed(.sync, let path): traced = name(path).map { .syncFailed($0) }
        case .failed: traced = nil
        case .started(_, let path): traced = name(path).map { .syncStarted($0) }
        case .finished(_, let path): traced = name(path).map { .syncFinished($0) }
        case .renamed(let source, let destination):
            if let from = name(source), let to = name(destination) { traced = .renamed(from, to: to) } else { traced = nil }
        case .removed(let path): traced = name(path).map { .removed($0) }
        case .truncated(let path, let length): traced = name(path).map { .truncated($0, length: length) }
        }
        if let traced { events.withLockedValue { $0.append(traced) } }
    }

    private func name(_ path: String) -> String? {
        guard path.hasPrefix(directory + "/") else { return nil }
        let name = path.dropFirst(directory.count + 1)
        return name.contains("/") ? nil : String(name)
    }
}

// MARK: - Saving and loading

/// The binary form of a trace, so that a failing state can be replayed from the file the test
/// names (the workload's thread interleaving cannot be reproduced from a seed).
enum IOTraceFile {
    static func save(_ events: [TraceEvent], to path: String) throws {
        var writer = ByteWriter(capacity: 1 << 20)
        writer.writeRaw(Array("STRACE1\n".utf8))
        writer.writeCount(events.count)
        for event in events {
            switch event {
            case .opened(let name, let truncated):
                writer.write(0); writer.writeString(name); writer.write(truncated ? 1 : 0)
            case .wrote(let name, let offset, let bytes):
                writer.write(1); writer.writeString(name); writer.writeVarint(offset); writer.writeBytes(bytes)
            case .syncStarted(let name): writer.write(2); writer.writeString(name)
            case .syncFinished(let name): writer.write(3); writer.writeString(name)
            case .directorySyncStarted: writer.write(4)
            case .directorySyncFinished: writer.write(5)
            case .renamed(let from, let to): writer.write(6); writer.writeString(from); writer.writeString(to)
            case .removed(let name): writer.write(7); writer.writeString(name)
            case .truncated(let name, let length): writer.write(8); writer.writeString(name); writer.writeVarint(length)
            case .acknowledged(let id): writer.write(9); writer.writeSignedVarint(id)
            case .syncFailed(let name): writer.write(10); writer.writeString(name)
            }
        }
        guard FileManager.default.createFile(atPath: path, contents: Data(writer.bytes)) else {
            throw StrataError(.fileAccess, "cannot write the trace", path: path)
        }
    }

    static func load(from path: String) throws -> [TraceEvent] {
        let bytes = try POSIXFile(path: path, mode: .readOnly).readAll()
        return try bytes.withUnsafeBytes { raw in
            var reader = ByteReader(raw, origin: path)
            guard try reader.readRaw(8) == Array("STRACE1\n".utf8) else { throw reader.corrupt("not a trace") }
            let count = try reader.readCount()
            var events: [TraceEvent] = []
            events.reserveCapacity(count)
            for _ in 0..<count {
                switch try reader.readByte() {
                case 0: events.append(.opened(try reader.readString(), truncated: try reader.readByte() != 0))
                case 1:
                    let name = try reader.readString()
                    let offset = try reader.readVarint()
                    events.append(.wrote(name, offset: offset, bytes: try reader.readBytes()))
                case 2: events.append(.syncStarted(try reader.readString()))
                case 3: events.append(.syncFinished(try reader.readString()))
                case 4: events.append(.directorySyncStarted)
                case 5: events.append(.directorySyncFinished)
                case 6:
                    let from = try reader.readString()
                    events.append(.renamed(from, to: try reader.readString()))
                case 7: events.append(.removed(try reader.readString()))
                case 8:
                    let name = try reader.readString()
                    events.append(.truncated(name, length: try reader.readVarint()))
                case 9: events.append(.acknowledged(try reader.readSignedVarint()))
                case 10: events.append(.syncFailed(try reader.readString()))
                case let tag: throw reader.corrupt("unknown trace event \(tag)")
                }
            }
            return events
        }
    }
}
