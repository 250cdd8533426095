import StrataEngine

/// Iterates the elements a `Results` held when the iteration began, as Realm Swift's
/// `RLMIterator` does.
///
/// The query runs (at most) once when the iterator is made; each step then creates one element
/// without looking the collection up again, so `for dog in dogs { … }` and `Array(dogs)` cost
/// one accessor per element.
public struct RLMIterator<Element: RealmCollectionValue>: IteratorProtocol {
    private let count: Int
    private let element: (Int) -> Element
    private var position = 0

    init(rows: ResultsRows, realm: Realm) {
        count = rows.count
        element = rows.elementReader(as: Element.self, realm: realm)
    }

    /// The next element, or nil after the last one.
    ///
    /// - Complexity: O(log n).
    public mutating func next() -> Element? {
        guard position < count else { return nil }
        defer { position += 1 }
        return element(position)
    }
}

extension Results {
    /// An iterator over the results at the Realm's current version.
    ///
    /// - Complexity: O(1), or O(n) when the query must run first.
    public func makeIterator() -> RLMIterator<Element> {
        RLMIterator(rows: rows, realm: owner)
    }
}

extension ResultsRows {
    /// Reads the element at a position, with the element type's table resolved once.
    func elementReader<Element: RealmCollectionValue>(as type: Element.Type, realm: Realm) -> (Int) -> Element {
        if case .values = self { return { element(at: $0, as: Element.self, realm: realm) } }
        guard let objectType = Element.self as? ObjectBase.Type, objectType == Element.self,
              let table = realm.tableInfo(for: ClassInfo.known(objectType)) else {
            return { element(at: $0, as: Element.self, realm: realm) }
        }
        // `Element` is exactly `objectType`, so the accessor needs no dynamic cast.
        let batch = RowBatch(rows: self, table: table.key)
        return { position in
            let key = key(at: position)
            let object = realm.accessor(objectType, table: table, key: key)
            batch.prime(object, at: position, realm: realm)
            return unsafeBitCast(object, to: Element.self)
        }
    }
}

/// The rows of the next elements of an iteration, read a batch at a time, so that each accessor
/// starts with its row cached: keys that follow each other in one leaf of the table (a scan's
/// key order) share one descent of the tree, instead of each object's first property read
/// looking its row up alone.
private final class RowBatch {
    /// Rows read per batch: a leaf's worth.
    private static let size = 64
    private let rows: ResultsRows
    private let table: TableKey
    private var start = 0
    private var batch: [Row?] = []
    private var readKey = RealmState.noReadKey

    init(rows: ResultsRows, table: TableKey) {
        self.rows = rows
        self.table = table
    }

    /// Caches the row of the element at `position` in `object`, reading the next batch when
    /// `position` is past this one or the Realm moved to another version or write position.
    func prime(_ object: ObjectBase, at position: Int, realm: Realm) {
        let state = realm.state
        guard !state.isFrozen else { return }
        let currentKey = state.readKey
        if currentKey != readKey || position < start || position >= start + batch.count {
            let end = min(position + Self.size, rows.count)
            let keys = (position..<end).map { rows.key(at: $0) }
            batch = realm.readSnapshot.table(table)?.rows(keys) ?? []
            start = position
            readKey = currentKey
        }
        let index = position - start
        guard index < batch.count, let row = batch[index] else { return }
        object.cachedRow = row
        object.cachedRowKey = currentKey
    }
}
