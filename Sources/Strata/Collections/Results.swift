import Foundation
import StrataEngine
import StrataNotify
import StrataQuery
import StrataSupport

/// The objects of a query, as Realm Swift's `Results`: lazy (nothing is evaluated until it is
/// read) and live (it always shows the Realm's current version, re-evaluated only when that
/// version changed).
///
/// ```swift
/// let puppies = realm.objects(Dog.self)
///     .where { $0.age < 2 && $0.name.starts(with: "R") }
///     .sorted(byKeyPath: "name")
/// let same = realm.objects(Dog.self).filter("age < $0 AND name BEGINSWITH $1 SORT(name ASC)", 2, "R")
/// ```
public struct Results<Element: RealmCollectionValue>: RealmCollection, CustomStringConvertible {
    let owner: Realm
    let source: ResultsSource
    /// The query as the code wrote it: key paths of property names.
    let modelQuery: ParsedQuery
    /// The query the engine runs: key paths of column names (the same as ``modelQuery`` unless a
    /// class maps properties to other column names, see ``ColumnMapping``).
    let query: ParsedQuery
    let cache = ResultsCache()

    /// Results of `source` filtered, sorted and limited by `query`, whose key paths name
    /// properties (not columns).
    init(realm: Realm, source: ResultsSource, query: ParsedQuery = ParsedQuery(predicate: .constant(true))) {
        owner = realm
        self.source = source
        modelQuery = query
        self.query = ColumnMapping.columnNames(of: query, root: source.elementClassName, in: realm)
    }

    /// The Realm the results read.
    public var realm: Realm? { owner }

    /// Whether the Realm was invalidated.
    public var isInvalidated: Bool { owner.isInvalidated }

    /// The rows at the Realm's current version, evaluated at most once per version.
    var rows: ResultsRows {
        owner.verifyThread()
        // Threads may share frozen results: their one evaluation happens under a lock.
        if owner.isFrozen { return cache.frozenRows { source.evaluate(query, in: owner) } }
        let generation = owner.readGeneration
        if let cached = cache.rows, cache.generation == generation { return cached }
        let rows = source.evaluate(query, in: owner)
        cache.rows = rows
        cache.generation = generation
        return rows
    }

    public var startIndex: Int { 0 }

    /// The number of elements.
    ///
    /// - Complexity: O(1) for all objects of a type, otherwise O(n) for the first read after a
    ///   change (the query runs), O(1) after.
    public var endIndex: Int {
        if case .table = source, case .constant(true) = query.predicate, query.limit == nil, query.distinct.isEmpty {
            return owner.readSnapshot.table(named: source.className ?? "")?.count ?? 0
        }
        return rows.count
    }

    /// The element at `position`.
    ///
    /// - Complexity: O(log n).
    public subscript(position: Int) -> Element {
        let rows = self.rows
        precondition(position >= 0 && position < rows.count,
                     "Index \(position) is out of bounds (must be less than \(rows.count)).")
        return rows.element(at: position, as: Element.self, realm: owner)
    }

    /// The first 100 elements as Realm prints results (`Results<Dog> <0x…> (\n\t[0] …\n)`, nested five levels deep).
    public var description: String { description(depth: RealmDescription.maximumDepth) }

    func description(depth: Int) -> String {
        RealmDescription.collection("Results", elementType: RealmDescription.typeName(Element.self), identity: self as AnyObject,
                                    elements: RealmDescription.indexed(self), count: count, depth: depth)
    }

    /// Whether both are the same query (source, predicate, sort and distinct) on the same Realm
    /// instance.
    public static func == (lhs: Results, rhs: Results) -> Bool {
        lhs.owner.state === rhs.owner.state && lhs.source == rhs.source && lhs.query == rhs.query
    }

    /// The same results with another query.
    func with(_ change: (inout ParsedQuery) -> Void) -> Results {
        var query = modelQuery
        change(&query)
        return Results(realm: owner, source: source, query: query)
    }
}

/// Where the elements of a `Results` come from.
enum ResultsSource: Equatable {
    /// Every object of a class.
    case table(className: String)
    /// The objects or values of a collection property (a list, set, map's values or linking
    /// objects), in the collection's order.
    case collection(CollectionBase)

    var className: String? {
        if case .table(let name) = self { return name }
        return nil
    }

    /// The class of the objects the results hold; nil for primitive values.
    var elementClassName: String? {
        switch self {
        case .table(let name): name
        case .collection(let base): (base.backlinks?.origin ?? base.objectClass)?.className()
        }
    }

    func evaluate(_ query: ParsedQuery, in realm: Realm) -> ResultsRows {
        let snapshot = realm.readSnapshot
        switch self {
        case .table(let className):
            guard let table = snapshot.table(named: className) else { return .objects([]) }
            if case .constant(true) = query.predicate, query.sort.isEmpty, query.distinct.isEmpty, query.limit == nil,
               !realm.isRecordingEvents {
                // Every object in key order: the table itself, at this version, rather than a
                // list of its keys (8 bytes per object, 160 MB for 20 million).
                return .table(table)
            }
            let matches = run(query, table: table.key, base: nil, snapshot: snapshot, keepingRows: !realm.isFrozen, in: realm)
            if realm.isRecordingEvents { realm.recordQueryRead(table: table.key, keys: matches.keys) }
            return .objects(matches.keys, rows: matches.rows.map { ScannedRows(rows: $0, readKey: realm.state.readKey) })
        case .collection(let base):
            switch base.elements(realm) {
            case .objects(let table, let keys):
                guard let table else { return .objects([]) }
                let matched = run(query, table: table, base: keys, snapshot: snapshot, keepingRows: false, in: realm).keys
                if realm.isRecordingEvents { realm.recordQueryRead(table: table, keys: matched) }
                return .objects(matched)
            case .values(let values):
                return .values(PrimitiveQuery.run(query, values: values, snapshot: snapshot))
            }
        }
    }

    private func run(_ query: ParsedQuery, table: TableKey, base: [ObjectKey]?, snapshot: Snapshot,
                     keepingRows: Bool, in realm: Realm) -> CompiledQuery.Matches {
        do {
            // Outside a write, the snapshot is a published one: a scan packs the leaves of rows
            // written since the last checkpoint as it goes (see `Table.forEachLeaf(packingRows:_:)`).
            return try CompiledQuery(query, snapshot: snapshot, table: table)
                .matches(on: snapshot, base: base, keepingRows: keepingRows, packingRows: !realm.isInWriteTransaction)
        } catch {
            preconditionFailure("\(error)")
        }
    }
}

/// The evaluated elements of a `Results`.
enum ResultsRows {
    /// Objects in the query's order; `rows` are the rows the query read for them, when it kept
    /// them (see ``ScannedRows``).
    case objects([ObjectKey], rows: ScannedRows? = nil)
    /// Every object of a table in key order, read from the table as it was when the results were
    /// evaluated (the table value keeps that version's tree).
    case table(StrataEngine.Table)
    case values([StrataEngine.Value])
    /// The ordered matches a notifier maintains (adopted at delivery, so reading the results in
    /// a callback does not run the query again).
    case matches(TableResultsComputer.Matches)

    var count: Int {
        switch self {
        case .objects(let keys, _): keys.count
        case .table(let table): table.count
        case .values(let values): values.count
        case .matches(let matches): matches.count
        }
    }

    func element<Element: RealmCollectionValue>(at position: Int, as type: Element.Type, realm: Realm) -> Element {
        switch self {
        case .objects, .table, .matches:
            if let objectType = Element.self as? ObjectBase.Type, let table = realm.tableInfo(ofType: objectType) {
                return realm.accessor(objectType, table: table, key: key(at: position)) as! Element
            }
            if let projectionType = Element.self as? any ProjectionObservable.Type,
               let projection = self.projection(projectionType, at: position, realm: realm) {
                return projection as! Element
            }
            // The `Dog?` values of a `Map<String, Dog?>`.
            if let objectType = Element._rlmColumn.objectType,
               let table = realm.tableInfo(for: ClassInfo.known(objectType)) {
                return realm.accessor(objectType, table: table, key: key(at: position)) as! Element
            }
            preconditionFailure("Results of \(Element.self) hold objects")
        case .values(let values):
            let context = _ReadContext(realm: realm, table: TableKey(0), object: ObjectKey(0), column: -1)
            return Element._rlmFromStored(values[position], context)
        }
    }
}

extension ResultsRows {
    /// A projection of the object at `position`, for `Results` of projections.
    private func projection<P: ProjectionObservable>(_ type: P.Type, at position: Int, realm: Realm) -> P? {
        guard let table = realm.tableInfo(for: ClassInfo.known(P.Root.self)) else { return nil }
        return P(projecting: realm.accessor(P.Root.self, table: table, key: key(at: position)))
    }

    /// The object at `position` (objects only).
    func key(at position: Int) -> ObjectKey {
        switch self {
        case .objects(let keys, _): keys[position]
        case .table(let table): table.object(at: position)
        case .matches(let matches): matches.key(at: position)
        case .values: preconditionFailure("Results of values hold no objects")
        }
    }

    /// The objects at positions `position ..< position + count` (fewer at the end; objects only).
    ///
    /// - Complexity: O(count), O(log n + count) for every object of a table.
    func keys(from position: Int, count: Int) -> [ObjectKey] {
        let end = Swift.min(position + count, self.count)
        guard position < end else { return [] }
        switch self {
        case .objects(let keys, _): return Array(keys[position..<end])
        case .table(let table): return table.objects(from: position, count: end - position)
        case .matches, .values: return (position..<end).map { key(at: $0) }
        }
    }
}

/// The rows a query read for its matches, parallel to the keys of `ResultsRows.objects`: an
/// iteration over the results starts each accessor with its row from here instead of looking it
/// up again, while the Realm's ``RealmState/readKey`` is still the one they were read at.
struct ScannedRows {
    let rows: [Row]
    let readKey: UInt64
}

/// The cached rows of a `Results` and the read generation they were evaluated at.
final class ResultsCache {
    var rows: ResultsRows?
    var generation: Realm.ReadGeneration?
    /// The rows of frozen results, evaluated once.
    private let frozen = LockedValueBox<ResultsRows?>(nil)

    func frozenRows(_ evaluate: () -> ResultsRows) -> ResultsRows {
        frozen.withLockedValue { rows in
            if let rows { return rows }
            let evaluated = evaluate()
            rows = evaluated
            return evaluated
        }
    }
}

/// A managed collection property a `Results` can be built on.
struct CollectionBase: Equatable {
    let location: CollectionLocation
    /// The class of linked objects, nil for primitive elements.
    let objectClass: ObjectBase.Type?
    /// For linking objects: the origin class and property.
    let backlinks: (origin: ObjectBase.Type, property: String)?

    static func == (lhs: CollectionBase, rhs: CollectionBase) -> Bool {
        lhs.location.propertyPath == rhs.location.propertyPath && lhs.location.path == rhs.location.path
            && lhs.backlinks?.property == rhs.backlinks?.property
    }

    enum Elements {
        case objects(TableKey?, [ObjectKey])
        case values([StrataEngine.Value])
    }

    func elements(_ realm: Realm) -> Elements {
        if let backlinks {
            let origin = realm.tableInfo(for: ClassInfo.known(backlinks.origin))
            let linking = LinkingObjects<ObjectBase>(propertyName: backlinks.property, location: location)
            return .objects(origin?.key, linking.keys(originTable: origin))
        }
        guard location.exists else { return .values([]) }
        let stored: [StrataEngine.Value]
        switch location.value {
        case .list(let elements), .set(let elements): stored = elements
        case .dictionary(let map): stored = map.values
        default: stored = []
        }
        guard let objectClass else { return .values(stored) }
        let table = realm.tableInfo(for: ClassInfo.known(objectClass))?.key
        return .objects(table, stored.compactMap { $0.link?.key })
    }
}

/// Filtering, sorting and de-duplicating collections of primitive values (`self > 5`).
enum PrimitiveQuery {
    /// The values that match `query`, sorted, distinct and limited. The query was checked when
    /// the results were made (``Results/validate()``); a query that no longer compiles matches
    /// nothing rather than everything.
    static func run(_ query: ParsedQuery, values: [StrataEngine.Value], snapshot: Snapshot) -> [StrataEngine.Value] {
        if query == ParsedQuery(predicate: .constant(true)) { return values }
        guard let compiled = try? ElementQuery(query, snapshot: snapshot) else { return [] }
        return compiled.run(on: values, in: snapshot)
    }
}

extension Realm {
    /// Identifies what a Realm reads: changes after every commit, refresh and write instruction.
    struct ReadGeneration: Hashable {
        let version: UInt64
        let transaction: ObjectIdentifier?
        let instructions: Int
    }

    var readGeneration: ReadGeneration {
        if let transaction {
            return ReadGeneration(version: transaction.baseVersion, transaction: ObjectIdentifier(transaction),
                                  instructions: transaction.instructionCount)
        }
        return ReadGeneration(version: readSnapshot.version, transaction: nil, instructions: 0)
    }

    /// Every object of `type` in the Realm, live.
    public func objects<Element: Object>(_ type: Element.Type) -> Results<Element> {
        verifyThread()
        let info = ClassInfo.known(type)
        _ = tableInfo(for: info)
        return Results(realm: self, source: .table(className: info.className))
    }

    /// The object of `type` whose primary key is `key`, or nil; `nil` is a valid key for an
    /// optional primary key.
    ///
    /// Traps when the type has no primary key or `key` is not a value of its type.
    public func object<Element: Object, KeyType>(ofType type: Element.Type, forPrimaryKey key: KeyType) -> Element? {
        verifyThread()
        if let found = objectThroughLastLookup(type, key) { return found }
        let table = tableInfo(ofType: type)
        let info = table?.classInfo ?? ClassInfo.known(type)
        guard let primaryKey = info.primaryKey else {
            preconditionFailure("'\(info.className)' does not have a primary key")
        }
        guard let table else { return nil }
        let keyAccessor = info.properties[primaryKey].accessor
        guard let stored = Self.storedInteger(key, ofType: keyAccessor.valueType) ?? {
            let context = _WriteContext(realm: self, update: .error)
            return keyAccessor.storedValue(ofExactType: key, context)
                ?? ObjectHandle.stored(Self.unwrapped(key), as: keyAccessor.valueType, context)
        }() else {
            preconditionFailure("Invalid value '\(key)' of type '\(KeyType.self)' for '\(info.className)' primary key")
        }
        let tableKey = table.key
        let found = withReadSnapshot { $0.object(forPrimaryKey: stored, inTable: tableKey) }
        // After the read, which may have pinned a version: the entry is for the version read.
        if keyAccessor.valueType == KeyType.self, PrimaryKeyLookup.integer(key) != nil {
            keepLookup(of: type, keyType: KeyType.self, table: table)
        }
        guard let object = found else { return nil }
        return accessor(type, table: table, key: object)
    }

    /// `key` as an int column stores it, when it is an `Int` or an `Int64` and `type`, the primary
    /// key's type, is its own: the common primary-key lookup, without the generic conversion's
    /// calls through the key's witness tables (about a tenth of a lookup at 100k rows).
    @inline(__always)
    private static func storedInteger<Key>(_ key: Key, ofType type: any _Persistable.Type) -> StrataEngine.Value? {
        guard type == Key.self, let integer = PrimaryKeyLookup.integer(key) else { return nil }
        return .int(integer)
    }

    /// `value`, with an optional's `nil` as `NSNull` so loose conversion sees a null.
    static func unwrapped(_ value: Any) -> Any {
        if let optional = value as? any OptionalProtocol, optional.isNone { return NSNull() }
        return value
    }
}

/// Lets code ask whether an `Any` holds `Optional.none`.
protocol OptionalProtocol {
    var isNone: Bool { get }
}

extension Optional: OptionalProtocol {
    var isNone: Bool { self == nil }
}
