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
    /// The index of the first element equal to `object`.
    ///
    /// - Complexity: O(n).
    public func index(of object: Element) -> Int? { firstIndex(of: object) }

    /// The elements at `indexes`.
    public func objects(at indexes: IndexSet) -> [Element] { indexes.map { self[$0] } }

    /// The elements matching a Realm Query Language predicate, with `$0…$n` arguments.
    ///
    /// Keeps Realm Swift's non-throwing signature: a malformed string is a programmer error and
    /// traps with a message naming the position. For text from users or the network, use
    /// ``filter(validating:_:)``.
    ///
    /// - Complexity: O(1) to create; the query runs when the results are read.
    public func filter(_ predicateFormat: String, _ args: Any...) -> Results<Element> {
        do {
            return try filter(validating: predicateFormat, args)
        } catch {
            preconditionFailure("Invalid query \"\(predicateFormat)\": \(error)")
        }
    }

    /// The elements matching a Realm Query Language predicate; throws instead of trapping, for
    /// queries from untrusted input.
    ///
    /// - Throws: ``Realm/Error`` with code `invalidQuery`, whose message names the position and
    ///   what was expected, or the property that does not exist.
    public func filter(validating predicateFormat: String, _ args: [Any] = []) throws -> Results<Element> {
        let base = _asResults
        let parsed: ParsedQuery
        do {
            parsed = try RQLParser.parse(predicateFormat, arguments: args.map(QueryArguments.argument))
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

    /// The index of the first element matching a Realm Query Language predicate.
    public func index(matching predicateFormat: String, _ args: Any...) -> Int? {
        let matches = (try? filter(validating: predicateFormat, args)) ?? filter(predicateFormat)
        guard let first = matches.first else { return nil }
        return firstIndex { $0.isSameObject(as: first) }
    }

    /// The elements sorted by a key path (through to-one links); stable.
    public func sorted<V>(by keyPath: KeyPath<Element, V>, ascending: Bool = true) -> Results<Element> {
        sorted(byKeyPath: KeyPathTracer.dottedName(of: keyPath), ascending: ascending)
    }

    /// The smallest value of a property, or nil when there are no (non-nil) values.
    public func min<T: _Persistable>(ofProperty property: String) -> T? { aggregate(.min, property) }

    /// The largest value of a property, or nil when there are no (non-nil) values.
    public func max<T: _Persistable>(ofProperty property: String) -> T? { aggregate(.max, property) }

    /// The sum of a property; 0 when there are no values.
    public func sum<T: _Persistable>(ofProperty property: String) -> T { aggregate(.sum, property) ?? T._rlmDefaultValue() }

    /// The average of a property, or nil when there are no (non-nil) values.
    public func average<T: _Persistable>(ofProperty property: String) -> T? { aggregate(.avg, property) }

    /// The smallest value of a key path's property, or nil.
    public func min<T: _Persistable>(of keyPath: KeyPath<Element, T>) -> T? { min(ofProperty: KeyPathTracer.dottedName(of: keyPath)) }

    /// The largest value of a key path's property, or nil.
    public func max<T: _Persistable>(of keyPath: KeyPath<Element, T>) -> T? { max(ofProperty: KeyPathTracer.dottedName(of: keyPath)) }

    /// The sum of a key path's property.
    public func sum<T: _Persistable>(of keyPath: KeyPath<Element, T>) -> T { sum(ofProperty: KeyPathTracer.dottedName(of: keyPath)) }

    /// The average of a key path's property, or nil.
    public func average<T: _Persistable>(of keyPath: KeyPath<Element, T>) -> T? {
        average(ofProperty: KeyPathTracer.dottedName(of: keyPath))
    }

    private func aggregate<T: _Persistable>(_ kind: AggregateKind, _ property: String) -> T? {
        let info = ClassInfo.known(Element.self)
        guard info.propertyIndex[property] != nil else {
            preconditionFailure("Invalid property name: property '\(property)' not found in object of type "
                                + "'\(info.className)'")
        }
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

extension RealmCollection where Element: Comparable {
    /// The values sorted, as Realm Swift's `sorted(ascending:)` for collections of primitives.
    public func sorted(ascending: Bool = true) -> Results<Element> {
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
    /// Checks the query against the schema.
    func validate() throws {
        guard case .table(let className) = source, let table = owner.readSnapshot.table(named: className) else { return }
        do {
            _ = try CompiledQuery(query, snapshot: owner.readSnapshot, table: table.key)
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
