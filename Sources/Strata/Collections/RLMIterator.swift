import StrataEngine

/// Iterates the elements a `Results`, `List`, `MutableSet` or `AnyRealmCollection` held when the
/// iteration began, as Realm Swift's `RLMIterator` does.
///
/// The query runs (at most) once when the iterator is made; each step then creates one element
/// without looking the collection up again, so `Array(dogs)` costs one accessor per element.
/// A loop that keeps no reference to the elements it is done with, `for dog in dogs { … }`,
/// gets the same accessor back for each element, rebound to it (an accessor only binds its
/// object: its class has no stored properties but `@Persisted` ones); an element the loop kept
/// stays the object it was and the next element gets a new accessor.
public struct RLMIterator<Element: RealmCollectionValue>: IteratorProtocol {
    // The stepping is inlinable, so that a loop's module specializes it for the element type: a
    // walk over objects then calls the reader's method directly and hands out the accessor as
    // it is, where the generic code wrapped each one in an `Optional` through the type's value
    // witnesses and reached it through two closures.
    @usableFromInline let count: Int
    /// The reader of a walk over objects of class `Element`; nil for other elements.
    @usableFromInline let objects: ObjectReader?
    /// The element at a position below `count` when `objects` is nil; nil ends the iteration
    /// early. (Two fields rather than an enum of the two sources: matching the enum's case
    /// retained the reader on every step, about 2 ns of the 87 a `String` read while iterating
    /// takes.)
    @usableFromInline let element: (Int) -> Element?
    @usableFromInline var position = 0

    init(rows: ResultsRows, realm: Realm) {
        count = rows.count
        if !rows.holdsValues, let objectType = Element.self as? ObjectBase.Type, objectType == Element.self,
           let reader = ObjectReader(rows: rows, objectType: objectType, realm: realm) {
            objects = reader
            element = { _ in nil }
        } else {
            objects = nil
            element = { rows.element(at: $0, as: Element.self, realm: realm) }
        }
    }

    /// Iterates `count` elements, each made by `element` from its position.
    init(count: Int, element: @escaping (Int) -> Element?) {
        self.count = count
        objects = nil
        self.element = element
    }

    /// Iterates `count` objects of class `Element`, read by `objects`.
    init(count: Int, objects: ObjectReader) {
        self.count = count
        self.objects = objects
        element = { _ in nil }
    }

    /// Iterates what `iterator` gives (a type-erased collection's iterator over its base's).
    init(wrapping iterator: some IteratorProtocol<Element>) {
        var iterator = iterator
        self.init(count: .max) { _ in iterator.next() }
    }

    /// Iterates the elements of an unmanaged collection.
    init(unmanaged elements: [Element]) {
        self.init(count: elements.count) { elements[$0] }
    }

    /// Iterates the stored elements of a managed `List` or `MutableSet` as they are now: objects
    /// as a `Results` loop walks them (rows read a batch at a time, an accessor the loop does not
    /// keep used again), other values converted one at a time in their place in the collection.
    init(stored elements: [StrataEngine.Value], of location: CollectionLocation) {
        if let objectType = Element.self as? Object.Type, objectType == Element.self,
           let keys = Self.objectKeys(of: elements),
           let reader = ObjectReader(rows: .objects(keys), objectType: objectType, realm: location.realm) {
            self.init(count: keys.count, objects: reader)
        } else {
            self.init(count: elements.count) { Element._rlmFromStored(elements[$0], location.elementContext(.index($0))) }
        }
    }

    /// The objects `elements` link to, or nil when one of them is not a link.
    private static func objectKeys(of elements: [StrataEngine.Value]) -> [ObjectKey]? {
        var keys: [ObjectKey] = []
        keys.reserveCapacity(elements.count)
        for element in elements {
            guard case .link(let link) = element else { return nil }
            keys.append(link.key)
        }
        return keys
    }

    /// The number of elements the iterator has yet to give (0 when it wraps another iterator,
    /// whose count it does not know).
    var underestimatedCount: Int { count == .max ? 0 : count - position }

    /// The next element, or nil after the last one.
    ///
    /// - Complexity: O(log n).
    @inlinable
    public mutating func next() -> Element? {
        guard position < count else { return nil }
        defer { position &+= 1 }
        // The reader makes accessors of `Element`'s own table, so of class `Element`.
        if let objects { return unsafeBitCast(objects.object(at: position), to: Element.self) }
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

extension RealmCollection where Iterator == RLMIterator<Element> {
    /// The results of calling `transform` on each element, in order.
    ///
    /// The same as `Collection.map`, walked as a `for` loop walks the collection (rows read a batch
    /// at a time, an accessor the transform does not keep used again for the next element)
    /// rather than by looking up each position: `people.map(\.name)` costs what the loop costs.
    ///
    /// - Complexity: O(n).
    public func map<T, E: Error>(_ transform: (Element) throws(E) -> T) throws(E) -> [T] {
        var iterator = makeIterator()
        var mapped: [T] = []
        mapped.reserveCapacity(iterator.underestimatedCount)
        while let element = iterator.next() { mapped.append(try transform(element)) }
        return mapped
    }
}

/// Reads the accessors of a walk in order over objects of one class (the rows of a `Results`,
/// the objects of a `List`, `MutableSet` or `LinkingObjects`): rows are read a batch at a time,
/// and an accessor nothing kept is rebound to the next object.
@usableFromInline
final class ObjectReader {
    private let objectType: ObjectBase.Type
    private let table: TableInfo
    private let realm: Realm
    private let batch: RowBatch
    private let recycler: AccessorRecycler?

    /// A reader of `rows` (objects of class `objectType`, that table's rows); nil when the Realm
    /// has no table for `objectType`.
    init?(rows: ResultsRows, objectType: ObjectBase.Type, realm: Realm) {
        guard let table = realm.tableInfo(for: ClassInfo.known(objectType)) else { return nil }
        self.objectType = objectType
        self.table = table
        self.realm = realm
        batch = RowBatch(rows: rows, table: table.key)
        recycler = table.classInfo.accessorsAreRecyclable ? AccessorRecycler() : nil
    }

    /// The accessor of the object at `position`, its row cached when the Realm is live.
    @usableFromInline
    func object(at position: Int) -> ObjectBase {
        let (key, row, readKey) = batch.entry(at: position, realm: realm)
        let object = recycler?.accessor(objectType, table: table, key: key, realm: realm)
            ?? realm.accessor(objectType, table: table, key: key)
        if let row {
            object.cachedRow = row
            object.cachedRowKey = readKey
        }
        return object
    }
}

extension ResultsRows {
    /// Whether the rows are values (a collection of values) rather than objects.
    var holdsValues: Bool {
        if case .values = self { return true }
        return false
    }
}

/// The keys and rows of the next elements of an iteration, read a batch at a time, so that each
/// accessor starts with its row cached: keys that follow each other in one leaf of the table (a
/// scan's key order) share one descent of the tree, instead of each object's first property read
/// looking its row up alone, and the keys of every object of a table are read along its leaves.
private final class RowBatch {
    /// Elements read per batch: a leaf's worth (a walk through every object reads whole leaves,
    /// at least this many).
    private static let size = 64
    private let rows: ResultsRows
    private let table: TableKey
    // The fields are read on every element: they need no dynamic exclusivity checks, a batch
    // being used by one iterator on one thread, and no access to them spanning a call that could
    // reach the batch again.
    /// The keys of positions `start ..< start + keys.count`.
    @exclusivity(unchecked) private var start = 0
    @exclusivity(unchecked) private var keys: [ObjectKey] = []
    /// Their rows at `readKey` (nil for an object the Realm no longer has, and once given to an
    /// accessor); empty for a frozen Realm, whose objects do not cache rows.
    @exclusivity(unchecked) private var batch: [Row?] = []
    @exclusivity(unchecked) private var readKey = RealmState.noReadKey
    /// The rows a walk through every object read with `keys`, at the table's evaluated version,
    /// until they become the batch.
    @exclusivity(unchecked) private var walkedRows: [Row?]?

    /// Whether the rows handed out are prefetched a few elements ahead: for a query's results.
    private let prefetchesRows: Bool

    init(rows: ResultsRows, table: TableKey) {
        self.rows = rows
        self.table = table
        if case .objects = rows { prefetchesRows = true } else { prefetchesRows = false }
    }

    /// The key of the element at `position`, its row at the Realm's current read key if it may
    /// be cached, and that key. Reads the next batch when `position` is outside this one, and
    /// the rows again when the Realm moved to another version or write position.
    func entry(at position: Int, realm: Realm) -> (ObjectKey, Row?, UInt64) {
        if position < start || position >= start + keys.count {
            if position == start + keys.count, case .table(let table) = rows, let last = keys.last {
                // The next batch of a walk through every object: on from the last key read, the
                // rows read in the same pass (a leaf read through a full cache is read once).
                (keys, walkedRows) = table.objectsAndRows(after: last, count: Self.size)
            } else {
                keys = rows.keys(from: position, count: Self.size)
                walkedRows = nil
            }
            start = position
            readKey = RealmState.noReadKey
        }
        let state = realm.state
        guard !state.isFrozen else { return (keys[position - start], nil, readKey) }
        let currentKey = state.readKey
        if currentKey != readKey {
            batch = rowsOfBatch(at: currentKey, realm: realm)
            readKey = currentKey
        }
        let index = position - start
        // A query's results come in their own order, which for sorted results is not their
        // leaves': each row is a few cache misses (a packed row's, one per column), overlapped
        // this way. (A walk through every object goes along its leaves, which the processor's
        // own prefetching follows: there it only cost time.)
        let ahead = index &+ Row.prefetchDistance
        if prefetchesRows, ahead < batch.count, batch[ahead] != nil {
            // `Row?` is laid out as `Row` when it holds one (`RowLayoutTests`).
            batch.withUnsafeBufferPointer {
                Row.prefetchValues(at: UnsafeRawPointer($0.baseAddress.unsafelyUnwrapped + ahead)
                    .assumingMemoryBound(to: Row.self))
            }
        }
        // The row moves to the accessor, which is made once per position: the batch's reference
        // is not copied (a retain now and a release when the batch is replaced, on each row's
        // own storage). A position asked for again gets no row, so its accessor reads it.
        return (keys[index], index < batch.count ? batch[index].take() : nil, currentKey)
    }

    /// The rows of this batch's keys at `currentKey`: the ones the query kept or the walk read
    /// when they are still current, otherwise looked up in the Realm's snapshot.
    private func rowsOfBatch(at currentKey: UInt64, realm: Realm) -> [Row?] {
        if case .objects(let all, let scanned?) = rows, scanned.readKey == currentKey, scanned.rows.count == all.count {
            // Mapped, not converted: `Array([Row]) as [Row?]` casts each element dynamically.
            return scanned.rows[start..<(start + keys.count)].map(Optional.some)
        }
        let current = realm.readSnapshot.table(table)
        if let walked = walkedRows, case .table(let evaluated) = rows, let current, current.isUnchanged(from: evaluated) {
            // Handed over, not shared: rows are taken out of the batch, which would otherwise
            // copy the array (and retain every row) at the first.
            walkedRows = nil
            return walked
        }
        return current?.rows(keys) ?? []
    }
}
