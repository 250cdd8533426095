import Foundation
import StrataEngine
import StrataQuery

/// Implementation detail: lets queries see through `Optional` to a linked object's properties.
public protocol _QueryOptional {
    associatedtype Wrapped
}

extension Optional: _QueryOptional {}

/// Implementation detail: the collection types whose properties queries reach through.
public protocol _QueryCollection {
    associatedtype Element
}

extension List: _QueryCollection {}
extension MutableSet: _QueryCollection {}
extension LinkingObjects: _QueryCollection {}

// MARK: - Property access

extension Query where T: ObjectBase {
    /// The query of a property: `$0.name`.
    public subscript<V>(dynamicMember keyPath: KeyPath<T, V>) -> Query<V> {
        let names = KeyPathTracer.names(of: keyPath).map(KeyPathComponent.property)
        return Query<V>(.path(appending(names, collection: V.self is any _QueryCollection.Type)))
    }
}

extension Query where T: _QueryOptional, T.Wrapped: ObjectBase {
    /// The query of a property of an optional link: `$0.owner.name`.
    public subscript<V>(dynamicMember keyPath: KeyPath<T.Wrapped, V>) -> Query<V> {
        let names = KeyPathTracer.names(of: keyPath).map(KeyPathComponent.property)
        return Query<V>(.path(appending(names, collection: V.self is any _QueryCollection.Type)))
    }
}

extension Query where T: _QueryCollection, T.Element: ObjectBase {
    /// The query of a property of every element of a to-many relationship: `$0.dogs.name`
    /// (comparisons on it match when any element matches).
    public subscript<V>(dynamicMember keyPath: KeyPath<T.Element, V>) -> Query<V> {
        let names = KeyPathTracer.names(of: keyPath).map(KeyPathComponent.property)
        return Query<V>(.path(appending(names, collection: true)))
    }
}

// MARK: - Comparisons

extension Query where T: _Persistable {
    private func compare(_ op: ComparisonOperator, _ value: T, options: StringOptions = []) -> Query<Bool> {
        if let embedded = Query.memberwise(value) {
            let parts = embedded.map { name, stored in
                BoolNode.comparison(.path(appending([.property(name)])), op, stored, [])
            }
            let combined = parts.dropFirst().reduce(parts.first ?? .constant(true)) { op == .notEqual ? .or($0, $1) : .and($0, $1) }
            return Query<Bool>(.predicate(combined))
        }
        return Query<Bool>(.predicate(.comparison(node, op, QueryArguments.stored(value), options)))
    }

    /// For a type projected onto an embedded object, its properties and stored values (so that
    /// `$0.point == CGPoint(x: 1, y: 2)` is `point.x == 1 AND point.y == 2`).
    static func memberwise(_ value: T) -> [(String, StrataEngine.Value)]? {
        guard let custom = value as? any _CustomPersistable,
              let embedded = custom.persistableValue as? EmbeddedObject, embedded.handle == nil,
              let info = try? ClassInfo.of(type(of: embedded)) else { return nil }
        return info.storedProperties.map { property in
            (property.name, QueryArguments.stored(embedded[property.name] ?? NSNull()))
        }
    }

    /// `property == value`.
    public static func == (lhs: Query<T>, rhs: T) -> Query<Bool> { lhs.compare(.equal, rhs) }
    /// `property != value`.
    public static func != (lhs: Query<T>, rhs: T) -> Query<Bool> { lhs.compare(.notEqual, rhs) }
    /// `property > value`.
    public static func > (lhs: Query<T>, rhs: T) -> Query<Bool> { lhs.compare(.greater, rhs) }
    /// `property >= value`.
    public static func >= (lhs: Query<T>, rhs: T) -> Query<Bool> { lhs.compare(.greaterOrEqual, rhs) }
    /// `property < value`.
    public static func < (lhs: Query<T>, rhs: T) -> Query<Bool> { lhs.compare(.less, rhs) }
    /// `property <= value`.
    public static func <= (lhs: Query<T>, rhs: T) -> Query<Bool> { lhs.compare(.lessOrEqual, rhs) }

    /// `property == other property`.
    public static func == (lhs: Query<T>, rhs: Query<T>) -> Query<Bool> {
        Query<Bool>(.predicate(.pathComparison(lhs.path, .equal, rhs.path)))
    }
    /// `property != other property`.
    public static func != (lhs: Query<T>, rhs: Query<T>) -> Query<Bool> {
        Query<Bool>(.predicate(.pathComparison(lhs.path, .notEqual, rhs.path)))
    }
    /// `property > other property`.
    public static func > (lhs: Query<T>, rhs: Query<T>) -> Query<Bool> {
        Query<Bool>(.predicate(.pathComparison(lhs.path, .greater, rhs.path)))
    }
    /// `property < other property`.
    public static func < (lhs: Query<T>, rhs: Query<T>) -> Query<Bool> {
        Query<Bool>(.predicate(.pathComparison(lhs.path, .less, rhs.path)))
    }

    /// `property IN {values}`.
    public func `in`<U: Sequence>(_ collection: U) -> Query<Bool> where U.Element == T {
        Query<Bool>(.predicate(.inList(path, collection.map { QueryArguments.stored($0) })))
    }

    /// `property BETWEEN {lower, upper}` for a closed range.
    public func contains(_ range: ClosedRange<T>) -> Query<Bool> where T: Comparable {
        Query<Bool>(.predicate(.between(path, QueryArguments.stored(range.lowerBound), QueryArguments.stored(range.upperBound))))
    }

    /// `property >= lower AND property < upper` for a half-open range.
    public func contains(_ range: Range<T>) -> Query<Bool> where T: Comparable {
        Query<Bool>(.predicate(.and(.comparison(node, .greaterOrEqual, QueryArguments.stored(range.lowerBound), []),
                                    .comparison(node, .less, QueryArguments.stored(range.upperBound), []))))
    }
}

extension Query where T: _CustomPersistable {
    /// The query of the stored form of a projected type.
    public var persistableValue: Query<T.PersistedType> { Query<T.PersistedType>(node) }
}

extension Query where T: RawRepresentable, T: PersistableEnum {
    /// The query of an enum's raw value.
    public var rawValue: Query<T.RawValue> { Query<T.RawValue>(node) }
}

// MARK: - Logic

extension Query where T == Bool {
    private var boolNode: BoolNode {
        switch node {
        case .predicate(let bool): return bool
        case .path(let path): return .boolPath(path)
        case .subqueryCount: preconditionFailure("A subquery count must be compared with a number")
        }
    }

    /// Both hold.
    public static func && (lhs: Query<Bool>, rhs: Query<Bool>) -> Query<Bool> { Query(.predicate(.and(lhs.boolNode, rhs.boolNode))) }
    /// Either holds.
    public static func || (lhs: Query<Bool>, rhs: Query<Bool>) -> Query<Bool> { Query(.predicate(.or(lhs.boolNode, rhs.boolNode))) }
    /// It does not hold.
    public static prefix func ! (query: Query<Bool>) -> Query<Bool> { Query(.predicate(.not(query.boolNode))) }

    /// How many elements of the collection the predicate's key paths go through match it
    /// (`SUBQUERY(collection, $x, predicate).@count`): `($0.dogs.age > 5).count >= 2`.
    public var count: Query<Int> {
        guard let collection = boolNode.collection else {
            preconditionFailure("A subquery needs a predicate on a collection's elements")
        }
        return Query<Int>(.subqueryCount(collection: collection, predicate: boolNode))
    }
}

extension Query where T == Int {
    /// `count == value`.
    public static func == (lhs: Query<Int>, rhs: Int) -> Query<Bool> {
        Query<Bool>(.predicate(.comparison(lhs.node, .equal, .int(Int64(rhs)), [])))
    }
    /// `count > value`.
    public static func > (lhs: Query<Int>, rhs: Int) -> Query<Bool> {
        Query<Bool>(.predicate(.comparison(lhs.node, .greater, .int(Int64(rhs)), [])))
    }
    /// `count >= value`.
    public static func >= (lhs: Query<Int>, rhs: Int) -> Query<Bool> {
        Query<Bool>(.predicate(.comparison(lhs.node, .greaterOrEqual, .int(Int64(rhs)), [])))
    }
    /// `count < value`.
    public static func < (lhs: Query<Int>, rhs: Int) -> Query<Bool> {
        Query<Bool>(.predicate(.comparison(lhs.node, .less, .int(Int64(rhs)), [])))
    }
    /// `count <= value`.
    public static func <= (lhs: Query<Int>, rhs: Int) -> Query<Bool> {
        Query<Bool>(.predicate(.comparison(lhs.node, .lessOrEqual, .int(Int64(rhs)), [])))
    }
    /// `count != value`.
    public static func != (lhs: Query<Int>, rhs: Int) -> Query<Bool> {
        Query<Bool>(.predicate(.comparison(lhs.node, .notEqual, .int(Int64(rhs)), [])))
    }
}
