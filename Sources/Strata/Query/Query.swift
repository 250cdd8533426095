import Foundation
import StrataEngine
import StrataQuery

/// String comparison options of type-safe queries, as Realm Swift's `StringOptions`.
public struct StringOptions: OptionSet, Sendable, Hashable {
    public let rawValue: Int8
    public init(rawValue: Int8) { self.rawValue = rawValue }
    /// Ignore case (`[c]`).
    public static let caseInsensitive = StringOptions(rawValue: 1)
    /// Ignore diacritics (`[d]`).
    public static let diacriticInsensitive = StringOptions(rawValue: 2)

    var queryOptions: StrataQuery.StringOptions {
        var options: StrataQuery.StringOptions = []
        if contains(.caseInsensitive) { options.insert(.caseInsensitive) }
        if contains(.diacriticInsensitive) { options.insert(.diacriticInsensitive) }
        return options
    }
}

/// A type-safe query over `T`, as Realm Swift's `Query`: the argument of `where { }`.
///
/// Property access (`$0.owner.name`) builds key paths through links, embedded objects and
/// collections; comparisons, string operators, `in`, ranges, collection aggregates, map keys and
/// values, subqueries and `geoWithin` build the predicate. A comparison through a to-many
/// relationship means "any element".
///
/// ```swift
/// realm.objects(Person.self).where {
///     $0.age >= 18 && $0.name.starts(with: "A", options: .caseInsensitive) && $0.dogs.age > 5
/// }
/// ```
@dynamicMemberLookup
public struct Query<T> {
    let node: QueryNode

    init(_ node: QueryNode = .path(QueryPath())) { self.node = node }

    var path: QueryPath {
        guard case .path(let path) = node else { preconditionFailure("Expected a property in the query, found \(node)") }
        return path
    }

    func appending(_ components: [KeyPathComponent], collection: Bool = false) -> QueryPath {
        var path = self.path
        path.components += components
        if collection, path.collectionEnd == nil { path.collectionEnd = path.components.count }
        return path
    }

    /// The predicate this boolean query stands for, over objects of `root`.
    func predicate(root: ObjectBase.Type) -> QueryPredicate { node.predicate(root: root) }
}

/// A key path being built, and where (if anywhere) it enters a collection.
struct QueryPath: CustomStringConvertible {
    var components: [KeyPathComponent] = []
    /// The number of leading components that reach the first collection (for `ANY` and subqueries).
    var collectionEnd: Int?

    var description: String { components.map(\.description).joined(separator: ".") }
}

/// The building blocks of a type-safe query.
indirect enum QueryNode: CustomStringConvertible {
    /// A key path (the subject of a comparison).
    case path(QueryPath)
    /// `SUBQUERY(collection, $x, predicate).@count`.
    case subqueryCount(collection: QueryPath, predicate: BoolNode)
    /// A boolean query.
    case predicate(BoolNode)

    var description: String {
        switch self {
        case .path(let path): "\(path)"
        case .subqueryCount(let collection, _): "SUBQUERY(\(collection))"
        case .predicate: "predicate"
        }
    }

    func predicate(root: ObjectBase.Type?) -> QueryPredicate {
        switch self {
        case .predicate(let node): return node.build(root: root, variableFor: nil)
        case .path(let path):
            return .comparison(Comparison(.keyPath(QueryPath.resolve(path, root: root)), .equal, .value(.bool(true))))
        case .subqueryCount: preconditionFailure("A subquery count must be compared with a number")
        }
    }
}

/// A boolean query node.
indirect enum BoolNode {
    case comparison(QueryNode, ComparisonOperator, StrataEngine.Value, StringOptions)
    case pathComparison(QueryPath, ComparisonOperator, QueryPath)
    case between(QueryPath, StrataEngine.Value, StrataEngine.Value)
    case inList(QueryPath, [StrataEngine.Value])
    case geo(QueryPath, GeoShape)
    case boolPath(QueryPath)
    case and(BoolNode, BoolNode)
    case or(BoolNode, BoolNode)
    case not(BoolNode)
    case constant(Bool)

    /// The query-layer predicate; inside a subquery, paths that start with the collection are
    /// rewritten to start at the variable.
    func build(root: ObjectBase.Type?, variableFor prefix: (count: Int, root: ObjectBase.Type?)?) -> QueryPredicate {
        func key(_ path: QueryPath) -> QueryKeyPath {
            if let prefix, path.components.count >= prefix.count {
                var relative = QueryPath()
                relative.components = Array(path.components[prefix.count...])
                var resolved = QueryPath.resolve(relative, root: prefix.root)
                resolved.variable = "$x"
                return resolved
            }
            return QueryPath.resolve(path, root: root)
        }
        func operand(_ node: QueryNode) -> Operand {
            switch node {
            case .path(let path): return .keyPath(key(path))
            case .subqueryCount(let collection, let inner):
                let elementType = QueryPath.elementType(of: collection, root: root)
                return .subqueryCount(collection: key(collection), variable: "$x",
                                      predicate: inner.build(root: root, variableFor: (collection.components.count, elementType)))
            case .predicate: preconditionFailure("A predicate cannot be compared")
            }
        }
        switch self {
        case .comparison(let node, let op, let value, let options):
            return .comparison(Comparison(operand(node), op, .value(value), options: options.queryOptions))
        case .pathComparison(let left, let op, let right):
            return .comparison(Comparison(.keyPath(key(left)), op, .keyPath(key(right))))
        case .between(let path, let low, let high):
            return .between(.keyPath(key(path)), lower: .value(low), upper: .value(high), quantifier: .any)
        case .inList(let path, let values):
            return .inList(.keyPath(key(path)), .list(values.map { .value($0) }), quantifier: .any)
        case .geo(let path, let shape):
            return .geoWithin(key(path), shape)
        case .boolPath(let path):
            return .comparison(Comparison(.keyPath(key(path)), .equal, .value(.bool(true))))
        case .and(let a, let b):
            return QueryArguments.conjoin(a.build(root: root, variableFor: prefix), b.build(root: root, variableFor: prefix))
        case .or(let a, let b):
            return .or([a.build(root: root, variableFor: prefix), b.build(root: root, variableFor: prefix)])
        case .not(let inner):
            return .not(inner.build(root: root, variableFor: prefix))
        case .constant(let value):
            return .constant(value)
        }
    }

    /// The collection path every key path of the predicate goes through (for `.count`).
    var collection: QueryPath? {
        switch self {
        case .comparison(.path(let path), _, _, _), .between(let path, _, _), .inList(let path, _), .geo(let path, _),
             .boolPath(let path), .pathComparison(let path, _, _):
            guard let end = path.collectionEnd else { return nil }
            var prefix = QueryPath()
            prefix.components = Array(path.components[..<end])
            prefix.collectionEnd = end
            return prefix
        case .and(let a, let b), .or(let a, let b): return a.collection ?? b.collection
        case .not(let inner): return inner.collection
        default: return nil
        }
    }
}

extension QueryPath {
    /// The query-layer key path, with `LinkingObjects` properties turned into `@links` steps.
    static func resolve(_ path: QueryPath, root: ObjectBase.Type?) -> QueryKeyPath {
        var current = root.flatMap { try? ClassInfo.of($0) }
        var components: [KeyPathComponent] = []
        for component in path.components {
            guard case .property(let name) = component, let info = current, let index = info.propertyIndex[name] else {
                components.append(component)
                current = nil
                continue
            }
            let property = info.properties[index]
            if property.isLinkingObjects, let origin = property.column.objectType {
                components.append(.backlinks(table: origin.className(), property: property.originProperty ?? ""))
            } else {
                components.append(component)
            }
            current = property.column.objectType.flatMap { try? ClassInfo.of($0) }
        }
        return QueryKeyPath(components)
    }

    /// The class of the objects a collection path reaches.
    static func elementType(of path: QueryPath, root: ObjectBase.Type?) -> ObjectBase.Type? {
        var current = root
        for case .property(let name) in path.components {
            guard let type = current, let info = try? ClassInfo.of(type), let index = info.propertyIndex[name] else { return nil }
            current = info.properties[index].column.objectType
        }
        return current
    }
}
