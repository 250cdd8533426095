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
    let objects: ObjectReader?
    /// `objects`, unretained (the iterator holds it): stepping through a copy of the reference
    /// would retain and release the reader for every element.
    @usableFromInline let reader: Unmanaged<ObjectReader>?
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
            self.reader = Unmanaged.passUnretained(reader)
            element = { _ in nil }
        } else {
            objects = nil
            reader = nil
            element = { rows.element(at: $0, as: Element.self, realm: realm) }
        }
    }

    /// Iterates `count` elements, each made by `element` from its position.
    init(count: Int, element: @escaping (Int) -> Element?) {
        self.count = count
        objects = nil
        reader = nil
        self.element = element
    }

    /// Iterates `count` objects of class `Element`, read by `objects`.
    init(count: Int, objects: ObjectReader) {
        self.count = count
        self.objects = objects
        reader = Unmanaged.passUnretained(objects)
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
        if let reader { return unsafeBitCast(reader._withUnsafeGuaranteedRef { $0.object(at: position) }, to: Element.self) }
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
///
/// A rebindable accessor borrows its row from the batch (``ObjectBase/borrowedRow``) rather than
/// holding a copy: an element the loop is done with then costs no retain and release of its row.
/// The reader makes an accessor the loop kept hold its row before the batch lets go of it (at the
/// next element, or when the reader is freed); an accessor nothing kept is rebound or freed.
@usableFromInline
final class ObjectReader {
    private let objectType: ObjectBase.Type
    private let table: TableInfo
    private let realm: Realm
    private let batch: RowBatch
    private let recycler = AccessorRecycler()
    /// Whether accessors are rebound (``ClassInfo/accessorsAreRecyclable``) and borrow their rows.
    private let recycles: Bool

    /// A reader of `rows` (objects of class `objectType`, that table's rows); nil when the Realm
    /// has no table for `objectType`.
    init?(rows: ResultsRows, objectType: ObjectBase.Type, realm: Realm) {
        guard let table = realm.tableInfo(for: ClassInfo.known(objectType)) else { return nil }
        self.objectType = objectType
        self.table = table
        self.realm = realm
        batch = RowBatch(rows: rows, table: table.key)
        recycles = table.classInfo.accessorsAreRecyclable
    }

    deinit {
        // The batch goes with the reader: an accessor the loop kept must hold its row by now.
        _ = recycler.takeBackLent()
    }

    /// The accessor of the object at `position`, its row cached when the Realm is live.
    @usableFromInline
    func object(at position: Int) -> ObjectBase {
        guard recycles else {
            let (key, row, readKey) = batch.entry(at: position, realm: realm)
            let object = realm.accessor(objectType, table: table, key: key)
            if let row { object.cacheRow(Row.copy(at: row), at: readKey) }
            return object
        }
        // First, as the batch may move on: the last accessor is rebound, or holds its row if kept.
        let rebindable = recycler.takeBackLent()
        let (key, row, readKey) = batch.entry(at: position, realm: realm)
        if rebindable {
            if realm.isRecordingEvents { realm.recordObjectRead(table: table, key: key) }
            return recycler.rebindLent(to: key, row: row, at: readKey)
        }
        let object = realm.accessor(objectType, table: table, key: key)
        if let row { object.borrowRow(row, at: readKey) }
        recycler.lend(object)
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
/// The batch holds its rows (a leaf's, a query's, or the ones looked up) and lends them in place.
private final class RowBatch {
    /// Elements looked up per batch when they are not a leaf's.
    private static let size = 64
    private let rows: ResultsRows
    private let table: TableKey
    // The fields are read on every element: they need no dynamic exclusivity checks, a batch
    // being used by one iterator on one thread, and no access to them spanning a call that could
    // reach the batch again.
    /// The keys of positions `start ..< start + keys.count`.
    @exclusivity(unchecked) private var start = 0
    @exclusivity(unchecked) private var keys: ArraySlice<ObjectKey> = []
    /// The rows a walk through every object read with `keys` (their leaf's), at the table's
    /// evaluated version: the batch's rows whenever the Realm's table is still that version.
    @exclusivity(unchecked) private var walkedRows: ArraySlice<Row> = []
    /// The batch's rows at `readKey`, when they are not `walkedRows`: a query's, or looked up (nil
    /// for an object the Realm no longer has).
    @exclusivity(unchecked) private var otherRows: ArraySlice<Row> = []
    @exclusivity(unchecked) private var lookedUpRows: [Row?] = []
    /// Where the row of position `start` is (in one of the three), and how many rows follow it;
    /// nil for none (a frozen Realm, whose objects do not cache rows). `Row?` is laid out as
    /// `Row` when it holds one (`RowLayoutTests`), so both kinds are addressed alike.
    @exclusivity(unchecked) private var firstRow: UnsafeRawPointer?
    @exclusivity(unchecked) private var rowCount = 0
    @exclusivity(unchecked) private var rowsMayBeMissing = false
    @exclusivity(unchecked) private var readKey = RealmState.noReadKey

    /// Whether the rows handed out are prefetched a few elements ahead: for a query's results.
    private let prefetchesRows: Bool

    init(rows: ResultsRows, table: TableKey) {
        self.rows = rows
        self.table = table
        if case .objects = rows { prefetchesRows = true } else { prefetchesRows = false }
    }

    /// The key of the element at `position`, where its row at the Realm's current read key is
    /// when it may be cached (until the next call, or the batch is freed), and that key. Reads
    /// the next batch when `position` is outside this one, and the rows again when the Realm
    /// moved to another version or write position.
    func entry(at position: Int, realm: Realm) -> (ObjectKey, UnsafePointer<Row>?, UInt64) {
        if position < start || position >= start + keys.count { move(to: position) }
        guard !realm.state.isFrozen else { return (keys[keys.startIndex + position - start], nil, readKey) }
        // The state's read key, read as the accessors read it (`ChangeCounter.count` is a call).
        let currentKey = realm.changeCount.pointee
        if currentKey != readKey {
            holdRows(at: currentKey, realm: realm)
            readKey = currentKey
        }
        let index = position - start
        let key = keys[keys.startIndex + index]
        guard index < rowCount, let first = firstRow else { return (key, nil, currentKey) }
        // A query's results come in their own order, which for sorted results is not their
        // leaves': each row is a few cache misses (a packed row's, one per column), overlapped
        // this way. (A walk through every object goes along its leaves, which the processor's
        // own prefetching follows: there it only cost time.)
        let ahead = index &+ Row.prefetchDistance
        if prefetchesRows, ahead < rowCount, let row = row(at: ahead, from: first) { Row.prefetchValues(at: row) }
        return (key, row(at: index, from: first), currentKey)
    }

    /// The row at `index` of the rows starting at `first`, or nil when it is missing.
    @inline(__always)
    private func row(at index: Int, from first: UnsafeRawPointer) -> UnsafePointer<Row>? {
        let address = first + index &* MemoryLayout<Row>.stride
        if rowsMayBeMissing, address.assumingMemoryBound(to: Row?.self).pointee == nil { return nil }
        return address.assumingMemoryBound(to: Row.self)
    }

    /// Reads the keys of the batch that starts at `position`: the rest of the next leaf of a walk
    /// through every object, with its rows; otherwise a batch of keys from `position`.
    private func move(to position: Int) {
        walkedRows = []
        if case .table(let table) = rows, position == 0 || (position == start + keys.count && !keys.isEmpty) {
            (keys, walkedRows) = table.leafOfObjects(after: position == 0 ? nil : keys.last)
        }
        if walkedRows.isEmpty { keys = rows.keys(from: position, count: Self.size)[...] }
        start = position
        releaseRows()
        readKey = RealmState.noReadKey
    }

    /// Lets go of the rows lent (the reader has taken them back).
    private func releaseRows() {
        firstRow = nil
        rowCount = 0
        otherRows = []
        lookedUpRows = []
    }

    /// Holds the rows of this batch's keys at `currentKey`: the ones the walk read or the query
    /// kept when they are still current, otherwise the ones looked up in the Realm's snapshot.
    private func holdRows(at currentKey: UInt64, realm: Realm) {
        releaseRows()
        rowsMayBeMissing = false
        if case .objects(let all, let scanned?) = rows, scanned.readKey == currentKey, scanned.rows.count == all.count {
            otherRows = scanned.rows[start..<(start + keys.count)]
            lend(otherRows)
            return
        }
        let current = realm.readSnapshot.table(table)
        if !walkedRows.isEmpty, case .table(let evaluated) = rows, let current, current.isUnchanged(from: evaluated) {
            lend(walkedRows)
            return
        }
        lookedUpRows = current?.rows(Array(keys)) ?? []
        rowsMayBeMissing = true
        firstRow = lookedUpRows.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
        rowCount = lookedUpRows.count
    }

    /// Addresses `rows`, which the batch holds, as its rows.
    private func lend(_ rows: ArraySlice<Row>) {
        // The slice's storage stays where it is while the batch holds it unchanged.
        firstRow = rows.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
        rowCount = rows.count
    }
}
