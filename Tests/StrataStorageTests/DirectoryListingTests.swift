import Foundation
@testable import StrataStorage
import Testing

@Suite("Directory listing")
struct DirectoryListingTests {
    /// Regression: `siblings` copied each entry's whole 256-byte `d_name` out of readdir's
    /// buffer, reading past its end for a short entry placed last (strata-eventd crashed with
    /// SIGSEGV in `CommitLog.segmentPaths`). Thousands of names of every length put entries at
    /// every position of the buffer; AddressSanitizer reports the old over-read on this test
    /// every time (`swift test --sanitize=address --filter DirectoryListingTests`).
    @Test("siblings lists every matching name of a large directory, in order, and nothing else")
    func largeDirectory() throws {
        try withTemporaryDirectory { directory in
            var expected: [String] = []
            for n in 0..<3_000 {
                let name = "store.strata.log." + String(format: "%016llx", UInt64(n)) + String(repeating: "z", count: n % 40)
                expected.append(name)
                #expect(FileManager.default.createFile(atPath: directory.file("") + name, contents: nil))
                let other = directory.file("o\(n % 7)") + String(repeating: "y", count: n % 200)
                if !FileManager.default.fileExists(atPath: other) {
                    #expect(FileManager.default.createFile(atPath: other, contents: nil))
                }
            }
            for _ in 0..<20 {
                let listed = try FileSystem.siblings(of: directory.file("store.strata"), withPrefix: "store.strata.log.")
                #expect(listed == expected.sorted())
            }
        }
    }
}
