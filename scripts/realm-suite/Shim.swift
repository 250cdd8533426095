// A stand-in for Realm's TestCase and test utilities, with the signatures Realm's tests call,
// written for scripts/realm-suite.
import Foundation
import RealmSwift
import XCTest

func inMemoryRealm(_ identifier: String) -> Realm {
    try! Realm(configuration: Realm.Configuration(inMemoryIdentifier: identifier))
}

@propertyWrapper
final class Locked<T>: @unchecked Sendable {
    private var value: T
    private let lock = NSLock()
    init(wrappedValue: T) { value = wrappedValue }
    var wrappedValue: T {
        get { lock.lock(); defer { lock.unlock() }; return value }
        set { lock.lock(); defer { lock.unlock() }; value = newValue }
    }
    var projectedValue: Locked<T> { self }
    func withLock<U>(_ body: (inout T) -> U) -> U { lock.lock(); defer { lock.unlock() }; return body(&value) }
}

nonisolated(unsafe) var unsupportedAssertThrows = 0

class TestCase: XCTestCase {
    var testDir: String! = nil
    let queue = DispatchQueue(label: "background")

    override func setUp() {
        super.setUp()
        testDir = NSTemporaryDirectory() + "realm-run-\(UUID().uuidString)"
        try! FileManager.default.createDirectory(atPath: testDir, withIntermediateDirectories: true)
        Realm.Configuration.defaultConfiguration = Realm.Configuration(fileURL: defaultRealmURL())
    }

    override func tearDown() {
        Realm.Configuration.defaultConfiguration = Realm.Configuration()
        try? FileManager.default.removeItem(atPath: testDir)
        super.tearDown()
    }

    func configurationWithTestPath(configuration: Realm.Configuration = Realm.Configuration()) -> Realm.Configuration {
        var configuration = configuration
        configuration.fileURL = testRealmURL()
        return configuration
    }

    @discardableResult
    func realmWithTestPath(configuration: Realm.Configuration = Realm.Configuration()) -> Realm {
        try! Realm(configuration: configurationWithTestPath(configuration: configuration))
    }

    func testRealmURL() -> URL { URL(fileURLWithPath: testDir + "/test.realm") }
    func defaultRealmURL() -> URL { URL(fileURLWithPath: testDir + "/default.realm") }

    func dispatchSyncNewThread(block: @Sendable @escaping () -> Void) {
        let done = DispatchSemaphore(value: 0)
        let thread = Thread { block(); done.signal() }
        thread.start()
        done.wait()
    }

    // As Realm's: `async`, then an empty `sync` to wait (a `sync` alone runs the block on the
    // calling thread, and the tests that check thread confinement would not leave it).
    func dispatchSyncBackground(block: @Sendable @escaping (TestCase) -> Void) {
        nonisolated(unsafe) let unsafeSelf = self
        queue.async { block(unsafeSelf) }
        queue.sync {}
    }

    // Realm raises Objective-C exceptions here; Strata traps. The block runs in a forked child
    // process: the assertion holds when the child dies (and, with a reason, printed it).
    func assertThrows<T>(_ block: @autoclosure () -> T, named: String? = nil, _ message: String? = nil,
                         fileName: String = #file, lineNumber: UInt = #line) {
        expectTrap({ _ = block() }, check: { _ in true }, what: "a trap", file: fileName, line: lineNumber)
    }
    func assertThrows<T>(_ block: @autoclosure () -> T, reason: String, _ message: String? = nil,
                         fileName: String = #file, lineNumber: UInt = #line) {
        expectTrap({ _ = block() }, check: { $0.contains(reason) }, what: "a trap saying \"\(reason)\"", file: fileName, line: lineNumber)
    }
    func assertThrows<T>(_ block: @autoclosure () -> T, reasonMatching regexString: String, _ message: String? = nil,
                         fileName: String = #file, lineNumber: UInt = #line) {
        expectTrap({ _ = block() }, check: { $0.range(of: regexString, options: .regularExpression) != nil },
                   what: "a trap matching \(regexString)", file: fileName, line: lineNumber)
    }

    func create<T: Object>(_ type: T.Type, value: [String: Any], update: Realm.UpdatePolicy = .error) -> T {
        let realm = try! Realm()
        return try! realm.write { realm.create(type, value: value, update: update) }
    }
}

func assertEqual<O: Object>(_ o1: O?, _ o2: O?, fileName: StaticString = #filePath, lineNumber: UInt = #line) {
    if o1 == nil && o2 == nil { return }
    if let o1, let o2, o1.isSameObject(as: o2) { return }
    XCTFail("not the same object: \(String(describing: o1)) and \(String(describing: o2))", file: fileName, line: lineNumber)
}

func assertEqual<C: Collection>(_ c1: C, _ c2: C, fileName: StaticString = #filePath, lineNumber: UInt = #line)
        where C.Element: Object {
    XCTAssertEqual(c1.count, c2.count, file: fileName, line: lineNumber)
    for (a, b) in zip(c1, c2) { assertEqual(a, b, fileName: fileName, lineNumber: lineNumber) }
}

func assertEqual<T: Equatable>(_ expected: [T?], _ actual: [T?], file: StaticString = #file, line: UInt = #line) {
    XCTAssertEqual(expected.count, actual.count, file: file, line: line)
    for (a, b) in zip(expected, actual) { XCTAssertEqual(a, b, file: file, line: line) }
}

func assertSucceeds(message: String? = nil, fileName: StaticString = #filePath, lineNumber: UInt = #line,
                    block: () throws -> Void) {
    do { try block() } catch { XCTFail("threw \(error)", file: fileName, line: lineNumber) }
}

func assertFails<T>(_ expectedError: Realm.Error.Code, _ message: String? = nil, fileName: StaticString = #filePath,
                    lineNumber: UInt = #line, block: () throws -> T) {
    do {
        _ = try block()
        XCTFail("nothing was thrown; expected \(expectedError)", file: fileName, line: lineNumber)
    } catch let e as Realm.Error where e.code == expectedError {
        if let message { XCTAssertEqual(e.localizedDescription, message, file: fileName, line: lineNumber) }
    } catch {
        XCTFail("threw \(error); expected \(expectedError)", file: fileName, line: lineNumber)
    }
}

func assertFails<T>(_ expectedError: Realm.Error.Code, _ file: URL, _ message: String, fileName: StaticString = #filePath,
                    lineNumber: UInt = #line, block: () throws -> T) {
    assertFails(expectedError, message, fileName: fileName, lineNumber: lineNumber, block: block)
}

func assertNil<T>(block: @autoclosure () -> T?, _ message: String? = nil, fileName: StaticString = #filePath,
                  lineNumber: UInt = #line) {
    XCTAssert(block() == nil, message ?? "", file: fileName, line: lineNumber)
}

func assertSetContains<T, U>(_ set: MutableSet<T>, keyPath: KeyPath<T, U>, items: [U]) where U: Hashable {
    XCTAssertEqual(Set(set.map { $0[keyPath: keyPath] }), Set(items))
}

func assertAnyRealmCollectionContains<T, U>(_ set: AnyRealmCollection<T>, keyPath: KeyPath<T, U>, items: [U]) where U: Hashable {
    XCTAssertEqual(Set(set.map { $0[keyPath: keyPath] }), Set(items))
}


// Linux has no autorelease pools.
func autoreleasepool<Result>(invoking body: () throws -> Result) rethrows -> Result { try body() }


extension XCTestCase {
    func fulfillment(of expectations: [XCTestExpectation]) async {
        await fulfillment(of: expectations, timeout: 10)
    }

    func assertMatches(_ block: @autoclosure () -> String, _ regexString: String, _ message: String? = nil,
                       fileName: String = #file, lineNumber: UInt = #line) {
        let text = block()
        XCTAssertNotNil(text.range(of: regexString, options: .regularExpression), message ?? "\(text) does not match \(regexString)")
    }
}

nonisolated(unsafe) var trapCount = (expected: 0, trapped: 0, matched: 0)

func expectTrap(_ block: () -> Void, check: (String) -> Bool, what: String, file: String, line: UInt) {
    trapCount.expected += 1
    var fds: [Int32] = [0, 0]
    pipe(&fds)
    fflush(stdout); fflush(stderr)
    let pid = fork()
    if pid == 0 {
        close(fds[0])
        dup2(fds[1], 1); dup2(fds[1], 2)
        alarm(10)
        block()
        fflush(stdout); fflush(stderr)
        _exit(0)
    }
    close(fds[1])
    var output = Data()
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = read(fds[0], &buffer, buffer.count)
        if n <= 0 { break }
        output.append(contentsOf: buffer[0..<n])
    }
    close(fds[0])
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    let text = String(decoding: output, as: UTF8.self)
    let exitedCleanly = (status & 0x7f) == 0 && ((status >> 8) & 0xff) == 0
    if exitedCleanly {
        XCTFail("expected \(what), but the block returned", file: StaticString(stringLiteral: "shim"), line: line)
        return
    }
    trapCount.trapped += 1
    if check(text) { trapCount.matched += 1 } else {
        XCTFail("expected \(what), got: \(text.suffix(400))", line: line)
    }
}

func openRealm(configuration: Realm.Configuration = .defaultConfiguration, actor: isolated any Actor) async throws -> Realm {
    try await Realm.open(configuration: configuration)
}

/// Passes when `expression` throws an error equal to `expectedError`.
func assertThrowsErrorAsync<T: Sendable, E: Equatable & Error>(
    _ expression: @autoclosure () async throws -> T, _ expectedError: E,
    _isolation: isolated (any Actor)? = #isolation, file: StaticString = #filePath, line: UInt = #line) async {
    let outcome: Result<T, any Error>
    do { outcome = .success(try await expression()) } catch { outcome = .failure(error) }
    switch outcome {
    case .success: XCTFail("nothing was thrown; expected \(expectedError)", file: file, line: line)
    case .failure(let error): XCTAssertEqual(error as? E, expectedError, "got \(error)", file: file, line: line)
    }
}

typealias RLMTestCaseBase = TestCase
typealias _HasPersistedType = _Persistable
