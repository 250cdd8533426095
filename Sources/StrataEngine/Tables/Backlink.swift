/// Where a link comes from: a column of an object.
package struct Backlink: Hashable, Sendable, CustomStringConvertible {
    /// The table of the linking object.
    package var table: TableKey
    /// The column of the linking object that holds the link.
    package var column: Int
    /// The linking object.
    package var object: ObjectKey

    /// Creates a backlink.
    package init(table: TableKey, column: Int, object: ObjectKey) {
        self.table = table
        self.column = column
        self.object = object
    }

    package var description: String { "\(table).\(column)@\(object)" }
}

/// The links pointing at one object, each with how many times it links (a list may hold the
/// same link twice).
struct BacklinkCounts: Sendable, Hashable {
    var counts: [Backlink: Int] = [:]

    mutating func add(_ origin: Backlink) { counts[origin, default: 0] += 1 }

    mutating func remove(_ origin: Backlink) {
        guard let count = counts[origin] else { return }
        counts[origin] = count > 1 ? count - 1 : nil
    }

    var isEmpty: Bool { counts.isEmpty }
}
