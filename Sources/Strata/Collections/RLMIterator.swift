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
        return { position in unsafeBitCast(realm.accessor(objectType, table: table, key: key(at: position)), to: Element.self) }
    }
}
