import Foundation
import Strata
import Testing

@Suite("Version")
struct VersionTests {
    /// CHANGELOG.md, at the repository's root.
    private static let changelog = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("CHANGELOG.md")

    @Test("Strata.version is the version of the CHANGELOG's latest release")
    func versionIsTheLatestRelease() throws {
        let text = try String(contentsOf: Self.changelog, encoding: .utf8)
        // Release headings read `## [1.2.3] - 2026-12-07`, newest first; `## [Unreleased]` has no date.
        let latest = text.split(separator: "\n").lazy
            .filter { $0.hasPrefix("## [") && !$0.hasPrefix("## [Unreleased]") }
            .compactMap { $0.dropFirst(4).split(separator: "]").first.map(String.init) }
            .first
        #expect(latest == Strata.version)
    }
}
