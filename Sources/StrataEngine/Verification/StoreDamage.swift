import StrataSupport

/// One damaged place a verification of a store's files found (see ``Store/verifyFiles(atPath:)``).
package struct StoreDamage: Sendable, Equatable {
    /// The damaged file: the page file or a log segment.
    package var path: String
    /// The page of the page file that is damaged (nil for a log segment, or when the damage is
    /// not one page's: a page both free and in use, a table whose catalog entry is inconsistent).
    package var page: UInt64?
    /// The byte offset of the damage in ``path``, when known.
    package var offset: UInt64?
    /// What is wrong, as a sentence naming the file (the message of the ``StrataError`` a read
    /// of it throws).
    package var problem: String
    /// What the damaged place held, when known: "the rows of table Event", "the catalog".
    package var structure: String?

    /// Creates a damage record from the error a read of the damaged place threw; the page is the
    /// one the error's offset falls in when the error concerns the page file at `pageFile` with
    /// pages of `pageSize` bytes.
    package init(_ error: StrataError, pageFile: String? = nil, pageSize: Int? = nil, structure: String? = nil) {
        path = error.path ?? pageFile ?? ""
        offset = error.offset
        problem = error.message
        self.structure = structure
        if let pageSize, path == pageFile, let offset = error.offset { page = offset / UInt64(pageSize) }
    }
}

/// Where a verification puts what it finds: every damaged place in turn, or only the first,
/// thrown at once (as the integrity checks that throw do).
struct DamageCollector {
    /// The damage found so far.
    private(set) var found: [StoreDamage] = []
    /// Whether the first damage is thrown rather than collected.
    let stopsAtFirst: Bool
    /// The page file the pages are in, and its page size: each damage names its page.
    let pageFile: String
    let pageSize: Int

    /// Records `error` as damage to `structure`, or throws it when this collector stops at the first.
    mutating func record(_ error: any Error, in structure: String? = nil) throws {
        let strataError = (error as? StrataError) ?? StrataError(.corruptFile, "\(error)", path: pageFile)
        // A failed read of the file is no damage found: the check itself cannot go on.
        if stopsAtFirst || strataError.code != .corruptFile { throw strataError }
        found.append(StoreDamage(strataError, pageFile: pageFile, pageSize: pageSize, structure: structure))
    }
}
