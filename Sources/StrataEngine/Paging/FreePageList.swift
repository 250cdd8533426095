import StrataStorage
import StrataSupport

/// The encoding of a checkpoint's free pages (a ``PageKind/freeList`` image): the pages below
/// its page count that its header does not reach, as ascending runs.
///
/// ```
/// varint run count
/// per run: varint gap (first page − the previous run's end, or − 2 for the first run),
///          varint length (at least 1)
/// ```
enum FreePageList {
    /// The image of `pages` (ascending, distinct).
    static func encode(_ pages: [UInt64]) -> [UInt8] {
        var runs: [(first: UInt64, length: UInt64)] = []
        for page in pages {
            if let last = runs.last, last.first + last.length == page {
                runs[runs.count - 1].length += 1
            } else {
                runs.append((page, 1))
            }
        }
        var writer = ByteWriter(capacity: 8 + runs.count * 4)
        writer.writeCount(runs.count)
        var end: UInt64 = 2
        for run in runs {
            writer.writeVarint(run.first - end)
            writer.writeVarint(run.length)
            end = run.first + run.length
        }
        return writer.bytes
    }

    /// Decodes an image written by ``encode(_:)``, checking every page lies in `2 ..< pageCount`.
    ///
    /// - Throws: ``StrataError/Code/corruptFile`` naming `path` and the list's first page.
    static func decode(_ image: [UInt8], pageCount: UInt64, path: String, at extent: PageExtent) throws -> [UInt64] {
        try image.withUnsafeBytes { raw in
            var reader = ByteReader(raw, origin: path)
            func corrupt(_ why: String) -> StrataError {
                StrataError(.corruptFile, "the free-page list at \(extent) of \(path) is damaged: \(why)", path: path)
            }
            let runCount = try reader.readCount(minimumElementSize: 2)
            var pages: [UInt64] = []
            var end: UInt64 = 2
            for _ in 0..<runCount {
                let (first, overflow) = end.addingReportingOverflow(try reader.readVarint())
                let length = try reader.readVarint()
                guard !overflow, length >= 1, length <= pageCount, first <= pageCount - length else {
                    throw corrupt("a run lies outside the file's \(pageCount) pages")
                }
                pages.append(contentsOf: first..<first + length)
                end = first + length
            }
            guard reader.isAtEnd else { throw corrupt("trailing bytes") }
            return pages
        }
    }
}
