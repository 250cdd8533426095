import Foundation
import StrataEngine
import StrataQuery

/// The operations every Realm collection shares, as Realm Swift's `RealmCollection`: adopted by
/// `Results`, `List`, `MutableSet`, `LinkingObjects` and `AnyRealmCollection`, and usable as a
/// generic constraint.
///
/// ```swift
/// func operateOn<C: RealmCollection>(collection: C) -> Int where C.Element == Dog {
///     collection.where { $0.age > 2 }.count
/// }
/// ```
public protocol RealmCollection: RandomAccessCollection, CustomStringConvertible, ThreadConfined
where Index == Int, Element: RealmCollectionValue {
    /// The collection as a query over its elements, in its order.
    var _asResults: Results<Element> { get }
}

extension RealmCollection {
    /// The index of the first element equal to `object`: for Realm objects, the same object
    /// (compared by table and key, so another accessor of it is found), as Realm's `index(of:)`.
    ///
    /// - Complexity: O(n).
    public func index(of object: Element) -> Int? { firstIndex(ofObjectOrValue: object) }

    /// The elements at `indexes`; traps, with Realm's message, when one is out of bounds.
    public func objects(at indexes: IndexSet) -> [Element] {
        if let last = indexes.last { precondition(last < count, "Indexes for collection are out of bounds.") }
        return indexes.map { self[$0] }
    }

    /// The elements matching a predicate, with arguments given as NSPredicate format specifiers
    /// (`filter("name == %@ AND age > %d", name, 18)`, `filter("%K == %@", "name", "Ada")`) or
    /// as Realm Query Language `$0…$n` (`filter("age > $0", 18)`).
    ///
    /// `%@` takes any value (a scalar, an object, nil, or an array, set, `Results` or `List` for
    /// `IN`), `%K` a key path, `%d`/`%i`/`%ld`/`%lld`/`%u` an integer, `%f`/`%lf`/`%g` a number
    /// and `%s` a string; `YES`/`NO` are `true`/`false`. Values are bound, never pasted into the
    /// text, so a string with quotes needs no escaping.
    ///
    /// Keeps Realm Swift's non-throwing signature: a malformed string, or arguments that do not
    /// fit it, is a programmer error and traps with a message naming the position, as Realm's
    /// exception does. For text from users or the network, use ``filter(validating:_:)``.
    ///
    /// - Complexity: O(1) to create; the query runs when the results are read.
    public func filter(_ predicateFormat: String, _ args: Any...) -> Results<Element> {
        do {
            return try filter(validating: predicateFormat, arguments: args)
        } catch {
            preconditionFailure("Invalid query \"\(predicateFormat)\": \(error)")
        }
    }

    /// The elements matching a predicate, taking its arguments exactly as ``filter(_:_:)`` does,
    /// but throwing instead of trapping, for queries from untrusted input.
    ///
    /// ```swift
    /// let adults = try people.filter(validating: "age >= %d AND name BEGINSWITH[c] %@", 18, prefix)
    /// ```
    ///
    /// - Throws: ``Realm/Error`` with code `invalidQuery`, whose message names the position and
    ///   what was expected; the property that does not exist; or the format specifier whose
    ///   argument is missing, extra or of the wrong type.
    public func filter(validating predicateFormat: String, _ args: Any...) throws -> Results<Element> {
        try filter(validating: predicateFormat, arguments: args)
    }

    /// The elements matching a predicate whose arguments are in an array (for queries built at
    /// run time); otherwise as ``filter(validating:_:)``.
    ///
    /// - Throws: ``Realm/Error`` with code `invalidQuery`.
    public func filter(validating predicateFormat: String, arguments: [Any]) throws -> Results<Element> {
        let base = _asResults
        let parsed: ParsedQuery
        do {
            parsed = try RQLParser.parse(predicateFormat, arguments: arguments.map(QueryArguments.argument))
        } catch {
            throw Realm.Error(Realm.Error.invalidQuery, "\(error) (at position \(error.position))")
        }
        let combined = base.with { query in
            query.predicate = QueryArguments.conjoin(query.predicate, parsed.predicate)
            if !parsed.sort.isEmpty { query.sort = parsed.sort }
            if !parsed.distinct.isEmpty { query.distinct = parsed.distinct }
            if let limit = parsed.limit { query.limit = Swift.min(limit, query.limit ?? limit) }
        }
        try combined.validate()
        return combined
    }

    /// The index of the first element matching a predicate (arguments as in ``filter(_:_:)``),
    /// or nil.
    ///
    /// Traps, as ``filter(_:_:)`` does, when the predicate or its arguments are malformed. On an
    /// unmanaged collection of primitives the predicate is evaluated in memory.
    ///
    /// - Complexity: O(n).
    public func index(matching predicateFormat: String, _ args: Any...) -> Int? {
        if realm == nil { return inMemoryIndex(matching: predicateFormat, arguments: args) }
        let matches: Results<Element>
        do {
            matches = try filter(validating: predicateFormat, arguments: args)
        } catch {
            preconditionFailure("Invalid query \"\(predicateFormat)\": \(error)")
        }
        guard let first = matches.first else { return nil }
        if let object = first as? ObjectBase {
            return firstIndex { ($0 as? ObjectBase)?.isSameObject(as: object) == true }
        }
        return firstIndex(of: first)
    }

    /// The elements sorted by a property (through to-one links: `"owner.name"`); stable.
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Element> {
        sorted(by: [SortDescriptor(keyPath: keyPath, ascending: ascending)])
    }

    /// The elements sorted by several properties, the first descriptor first; stable.
    public func sorted<S: Sequence>(by sortDescriptors: S) -> Results<Element> where S.Iterator.Element == SortDescriptor {
        _asResults.with { query in
            query.sort = sortDescriptors.map { SortKey(QueryKeyPath($0.keyPath), ascending: $0.ascending) }
        }.validated()
    }

    /// The elements, keeping the first of each distinct combination of the given properties.
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Iterator.Element == String {
        _asResults.with { query in query.distinct = keyPaths.map { QueryKeyPath($0) } }.validated()
    }
}

extension RealmCollection where Element: ObjectBase {
    /// The elements matching a type-safe query, as Realm Swift's `where`:
    /// `dogs.where { $0.age > 2 && $0.name.starts(with: "R") }`.
    public func `where`(_ isIncluded: (Query<Element>) -> Query<Bool>) -> Results<Element> {
        let base = _asResults
        let predicate = isIncluded(Query<Element>()).predicate(root: Element.self)
        return base.with { query in query.predicate = QueryArguments.conjoin(query.predicate, predicate) }.validated()
    }

    /// The index of the first element matching a type-safe query.
    public func index(matching isIncluded: (Query<Element>) -> Query<Bool>) -> Int? {
        guard let first = self.where(isIncluded).first else { return nil }
        return firstIndex { $0.isSameObject(as: first) }
    }

    /// The elements sorted by a key path (through to-one links); stable.
    public func sorted<V>(by keyPath: KeyPath<Element, V>, ascending: Bool = true) -> Results<Element> {
        sorted(byKeyPath: KeyPathTracer.dottedName(of: keyPath), ascending: ascending)
    }

    /// The elements, keeping the first of each distinct combination of the properties the key
    /// paths name, as Realm Swift's `distinct(by: [\.name, \.owner.city])`.
    ///
    /// - Complexity: O(1) to create; O(n) when read.
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Iterator.Element == PartialKeyPath<Element> {
        distinct(by: KeyPathTracer.observedNames(Array(keyPaths)))
    }

    /// The smallest value of a property, or nil when there are no (non-nil) values.
    public func min<T: _Persistable>(ofProperty property: String) -> T? where T.PersistedType: MinMaxType {
        aggregate(.min, property)
    }

    /// The largest value of a property, or nil when there are no (non-nil) values.
    public func max<T: _Persistable>(ofProperty property: String) -> T? where T.PersistedType: MinMaxType {
        aggregate(.max, property)
    }

    /// The sum of a property; 0 when there are no values.
    public func sum<T: _Persistable>(ofProperty property: String) -> T where T.PersistedType: AddableType {
        aggregate(.sum, property) ?? T._rlmDefaultValue()
    }

    /// The average of a property, or nil when there are no (non-nil) values.
    public func average<T: _Persistable>(ofProperty property: String) -> T? where T.PersistedType: AddableType {
        aggregate(.avg, property)
    }

    /// The smallest value of a key path's property, or nil.
    public func min<T: _Persistable>(of keyPath: KeyPath<Element, T>) -> T? where T.PersistedType: MinMaxType {
        min(ofProperty: KeyPathTracer.dottedName(of: keyPath))
    }

    /// The largest value of a key path's property, or nil.
    public func max<T: _Persistable>(of keyPath: KeyPath<Element, T>) -> T? where T.PersistedType: MinMaxType {
        max(ofProperty: KeyPathTracer.dottedName(of: keyPath))
    }

    /// The sum of a key path's property.
    public func sum<T: _Persistable>(of keyPath: KeyPath<Element, T>) -> T where T.PersistedType: AddableType {
        sum(ofProperty: KeyPathTracer.dottedName(of: keyPath))
    }

    /// The average of a key path's property, or nil.
    public func average<T: _Persistable>(of keyPath: KeyPath<Element, T>) -> T? where T.PersistedType: AddableType {
        average(ofProperty: KeyPathTracer.dottedName(of: keyPath))
    }

    private func aggregate<T: _Persistable>(_ kind: AggregateKind, _ property: String) -> T? {
        let info = ClassInfo.known(Element.self)
        guard info.propertyIndex[property] != nil else {
            preconditionFailure("Invalid property name: property '\(property)' not found in object of type "
                                + "'\(info.className)'")
        }
        // An unmanaged collection: its objects, unmanaged or not, are read in memory.
        guard realm != nil else { return inMemoryAggregate(kind, property) }
        let values = compactMap { object -> StrataEngine.Value? in
            guard let handle = object.handle, let index = handle.table.classInfo.propertyIndex[property] else { return nil }
            let column = handle.table.columns[index]
            return handle.realm.readSnapshot.table(handle.table.key)?.value(of: handle.key, column: column)
        }.filter { !$0.isNull }
        let result = Aggregation.reduce(kind, values)
        guard !result.isNull, let realm = self.realm else { return nil }
        let converted = QueryArguments.convert(result, to: T.self)
        return T._rlmFromStored(converted, _ReadContext(realm: realm, table: TableKey(0), object: ObjectKey(0), column: -1))
    }
}

extension RealmCollection where Element.PersistedType: SortableType {
    /// The values sorted, as Realm Swift's `sorted(ascending:)` for collections of primitives.
    ///
    /// - Complexity: O(1) to create; O(n log n) when read.
    public func sorted(ascending: Bool = true) -> Results<Element> { sortedByValue(ascending: ascending) }
}

extension RealmCollection {
    /// The elements sorted by their own values (Realm's `self` key path).
    func sortedByValue(ascending: Bool) -> Results<Element> {
        _asResults.with { query in query.sort = [SortKey(QueryKeyPath([]), ascending: ascending)] }
    }
}

extension RealmCollection {
    /// The distinct values, first occurrence kept, for collections of primitives.
    public func distinct() -> Results<Element> {
        _asResults.with { query in query.distinct = [QueryKeyPath([])] }
    }
}

extension Results {
    /// Checks the query against the schema: of the class for objects (of a table, a list, a
    /// set, a map's values or linking objects), or for primitive elements (`self > 5`).
    func validate() throws {
        let snapshot = owner.readSnapshot
        do {
            switch source {
            case .table(let className):
                guard let table = snapshot.table(named: className) else { return }
                _ = try CompiledQuery(query, snapshot: snapshot, table: table.key)
            case .collection(let base):
                if let objectClass = base.backlinks?.origin ?? base.objectClass {
                    guard let table = owner.tableInfo(for: ClassInfo.known(objectClass)) else { return }
                    _ = try CompiledQuery(query, snapshot: snapshot, table: table.key)
                } else {
                    _ = try ElementQuery(query, snapshot: snapshot)
                }
            }
        } catch {
            throw Realm.Error(Realm.Error.invalidQuery, error.message)
        }
    }

    /// `self`, trapping when the query does not fit the schema (the non-throwing API).
    func validated() -> Results {
        do {
            try validate()
        } catch {
            preconditionFailure("\(error)")
        }
        return self
    }

    public var _asResults: Results<Element> { self }
}

/// A sort key for `sorted(by:)`, as Realm Swift's `SortDescriptor`.
public struct SortDescriptor: Sendable, Hashable {
    /// The property path to sort by.
    public let keyPath: String
    /// Whether smaller values come first.
    public let ascending: Bool

    /// Creates a descriptor for a property path.
    public init(keyPath: String, ascending: Bool = true) {
        self.keyPath = keyPath
        self.ascending = ascending
    }

    /// Creates a descriptor for a key path of a model class.
    public init<Root: ObjectBase, Value>(keyPath: KeyPath<Root, Value>, ascending: Bool = true) {
        self.init(keyPath: KeyPathTracer.dottedName(of: keyPath), ascending: ascending)
    }

    /// The same key path in the opposite direction.
    public func reversed() -> SortDescriptor { SortDescriptor(keyPath: keyPath, ascending: !ascending) }
}

/// `SortDescriptor(keyPath: name, direction: ascending)`, as Realm Swift prints it.
extension SortDescriptor: CustomStringConvertible {
    public var description: String {
        "SortDescriptor(keyPath: \(keyPath), direction: \(ascending ? "ascending" : "descending"))"
    }
}

/// A string literal is an ascending sort on that key path, as in Realm Swift:
/// `results.sorted(by: ["name", SortDescriptor(keyPath: "age", ascending: false)])`.
extension SortDescriptor: ExpressibleByStringLiteral {
    /// An ascending descriptor for the key path `value`.
    public init(stringLiteral value: String) {
        self.init(keyPath: value)
    }
}
