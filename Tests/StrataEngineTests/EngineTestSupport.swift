#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Foundation
import Testing
@testable import StrataEngine
import StrataSupport

// MARK: - Temporary directories

/// A fresh directory made by `mkdtemp` under /tmp.
struct TemporaryDirectory: Sendable {
    /// The absolute path of the directory.
    let path: String

    /// The directory's own name (unique per test), e.g. for fault injection by path fragment.
    var name: String { String(path.split(separator: "/").last!) }

    /// The path of `file` inside the directory.
    func file(_ file: String) -> String { path + "/" + file }

    /// The names of the entries of the directory, sorted.
    func entries() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path).sorted()
    }
}

/// Runs `body` with a fresh temporary directory and removes it afterwards, whether `body`
/// returns or throws.
func withTemporaryDirectory<R>(_ body: (TemporaryDirectory) throws -> R) throws -> R {
    var template = Array("/tmp/strata-engine-test-XXXXXX".utf8CString)
    let path = try template.withUnsafeMutableBufferPointer { buffer -> String in
        guard let created = mkdtemp(buffer.baseAddress!) else {
            throw StrataError(.fileAccess, "mkdtemp failed", errno: errno)
        }
        return String(cString: created)
    }
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try body(TemporaryDirectory(path: path))
}

/// A unique in-memory store identifier.
func uniqueMemoryIdentifier(_ label: String = #function) -> String {
    "engine-tests-\(label)-\(UUID().uuidString)"
}

// MARK: - Store kinds

/// The kinds of store a test can run against.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case inMemory
    case fileFull
    case fileNormal

    var testDescription: String { rawValue }

    /// A configuration of this kind whose files (if any) live in `directory`.
    func configuration(in directory: TemporaryDirectory, name: String = "store.strata") -> StoreConfiguration {
        switch self {
        case .inMemory: .inMemory(uniqueMemoryIdentifier(directory.name))
        case .fileFull: .file(directory.file(name), durability: .full)
        case .fileNormal: .file(directory.file(name), durability: .normal)
        }
    }
}

// MARK: - Opening and releasing stores

/// A weak reference to a store, to see when the last strong reference is gone.
final class WeakStoreReference: @unchecked Sendable {
    // Safety: written once on the test's thread before any other thread can see the object,
    // then only read; `weak` loads are atomic.
    weak var store: Store?
}

/// Opens the store described by `configuration`, runs `body` with it, drops every reference
/// the test holds and waits (bounded) until the store is deallocated, so that the next
/// ``Store/open(_:)`` of the same path really reopens the files.
///
/// `body` must not return anything that keeps the store alive (a transaction or a pin).
func withStore<R>(_ configuration: StoreConfiguration, _ body: (Store) throws -> R) throws -> R {
    let reference = WeakStoreReference()
    let result: Result<R, any Error>
    do {
        let store = try Store.open(configuration)
        reference.store = store
        result = Result { try body(store) }
    }
    // A background checkpoint may still hold the store for a moment.
    let released = waitUntil(timeout: 20) { reference.store == nil }
    #expect(released, "the store was not released within 20 s; reopening would reuse the old instance")
    return try result.get()
}

/// Polls `condition` every millisecond until it holds or `timeout` seconds pass.
///
/// - Returns: whether the condition held.
@discardableResult
func waitUntil(timeout: Double, _ condition: () -> Bool) -> Bool {
    let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(timeout * 1e9)
    while !condition() {
        if DispatchTime.now().uptimeNanoseconds > deadline { return condition() }
        usleep(1_000)
    }
    return true
}

// MARK: - Errors

/// Expects `body` to throw a ``StrataError`` with `code`, and returns it.
@discardableResult
func expectStrataError<R>(
    _ code: StrataError.Code, _ comment: Comment? = nil,
    sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> R
) -> StrataError? {
    do {
        _ = try body()
        Issue.record("expected StrataError(\(code)), nothing was thrown. \(comment.map { "\($0)" } ?? "")",
                     sourceLocation: sourceLocation)
        return nil
    } catch let error as StrataError {
        #expect(error.code == code, "expected code \(code), got \(error). \(comment.map { "\($0)" } ?? "")",
                sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected StrataError(\(code)), got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

// MARK: - Threads

/// Collects failures seen on background threads, where `#expect` cannot attribute them to the
/// running test; the test asserts that the log is empty afterwards.
final class FailureLog: Sendable {
    private let entries = LockedValueBox<[String]>([])

    func record(_ message: String) {
        entries.withLockedValue { if $0.count < 50 { $0.append(message) } }
    }

    var all: [String] { entries.withLockedValue { $0 } }
}

/// A flag set by one thread and read by others.
final class StopFlag: Sendable {
    private let value = LockedValueBox(false)
    func stop() { value.withLockedValue { $0 = true } }
    var isStopped: Bool { value.withLockedValue { $0 } }
}

/// Runs `body(index)` on `count` new threads at once and waits for all of them (at most
/// `timeout` seconds).
///
/// - Returns: whether every thread finished in time.
@discardableResult
func runOnThreads(_ count: Int, timeout: Double = 60, _ body: @escaping @Sendable (Int) -> Void) -> Bool {
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        let thread = Thread {
            body(index)
            group.leave()
        }
        thread.stackSize = 8 << 20
        thread.start()
    }
    return group.wait(timeout: .now() + timeout) == .success
}

// MARK: - Random numbers

/// SplitMix64: a small seedable generator so a randomized run can be replayed from its seed.
struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The seed from `STRATA_SEED`, or a fresh random one.
    static func seedFromEnvironment() -> UInt64 {
        ProcessInfo.processInfo.environment["STRATA_SEED"].flatMap(UInt64.init)
            ?? UInt64.random(in: 1...UInt64(UInt32.max))
    }
}

// MARK: - Snapshot contents

/// Everything a snapshot holds, by table name: the rows by object key.
func contents(of snapshot: Snapshot) -> [String: [ObjectKey: Row]] {
    var result: [String: [ObjectKey: Row]] = [:]
    for table in snapshot.allTables {
        var rows: [ObjectKey: Row] = [:]
        table.forEachObject { key, row in rows[key] = row }
        result[table.schema.name] = rows
    }
    return result
}

extension Table {
    /// The object keys whose `column` equals `value`, by scanning every row.
    func scan(column: Int, equals value: Value) -> [ObjectKey] {
        var found: [ObjectKey] = []
        forEachObject { key, row in if row[column] == value { found.append(key) } }
        return found
    }
}

/// A link value to `key` in `table`.
func link(_ table: TableKey, _ key: ObjectKey) -> Value { .link(ObjectLink(table: table, key: key)) }

/// A property path.
func path(_ table: TableKey, _ object: ObjectKey, _ column: Int) -> PropertyPath {
    PropertyPath(table: table, object: object, column: column)
}

/// Seconds since an arbitrary origin, for throughput figures.
func monotonicSeconds() -> Double {
    Double(DispatchTime.now().uptimeNanoseconds) / 1e9
}

/// Every non-empty backlink list of a snapshot, by table name and object.
func backlinkState(of snapshot: Snapshot) -> [String: [ObjectKey: [Backlink]]] {
    var result: [String: [ObjectKey: [Backlink]]] = [:]
    for table in snapshot.allTables {
        var links: [ObjectKey: [Backlink]] = [:]
        for key in table.objectKeys {
            let backlinks = table.backlinks(to: key)
            if !backlinks.isEmpty { links[key] = backlinks }
        }
        result[table.schema.name] = links
    }
    return result
}

/// The schemas of a snapshot's tables, by key.
func schemas(of snapshot: Snapshot) -> [TableKey: TableSchema] {
    Dictionary(uniqueKeysWithValues: snapshot.allTables.map { ($0.key, $0.schema) })
}
