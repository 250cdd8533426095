import StrataEngine

/// A key path resolved against a schema: column indices and link targets instead of names.
struct CompiledPath: Hashable, Sendable {
    enum Step: Hashable, Sendable {
        /// A column of `table`; for links, `target` is the linked table. `expands` says whether a
        /// collection's elements continue the path (otherwise the next step reads the collection).
        case column(table: TableKey, column: Int, kind: CollectionKind, isLink: Bool, target: TableKey?, expands: Bool)
        /// Objects of `table` whose `column` links to the current object.
        case backlinks(table: TableKey, column: Int, expands: Bool)
        case mapKey(String)
        case keys
        case values
        /// The number of elements of the collection reached so far (not expanded).
        case count
        /// An aggregate over the collection reached so far, optionally of a property of each
        /// linked object.
        case aggregate(AggregateKind, property: Int?)
        case type
    }

    var variable: String?
    var steps: [Step]
    /// Whether the path can yield several values (it crosses a list, set, dictionary or backlinks).
    var isToMany: Bool
    /// For a single column of the root object: its index (the fast path and index use).
    var rootColumn: Int? {
        guard variable == nil, steps.count == 1, case .column(_, let column, .single, _, _, _) = steps[0] else { return nil }
        return column
    }

    /// The table the last step lands in, when it is an object (for links and subqueries).
    var targetTable: TableKey?
}

/// Resolves names in key paths against a snapshot's schema.
struct PathCompiler {
    let snapshot: Snapshot
    /// Subquery variables in scope and the table each ranges over.
    var variables: [String: TableKey] = [:]
    /// Whether key paths start at a primitive element (`self`) instead of an object's properties:
    /// the queries of `List<Int>`, `MutableSet<String>` and map values.
    var startsAtElement = false

    /// The message for a property `name` that objects of type `type` do not have, when it is
    /// not Realm's message for a predicate (a sort key's is another).
    var missingPropertyMessage: ((_ name: String, _ type: String) -> String)?

    func invalidProperty(_ name: String, _ table: TableKey) -> QueryError {
        let type = snapshot.table(table)?.schema.name ?? "?"
        let message = missingPropertyMessage?(name, type)
            ?? "Invalid property name: property '\(name)' not found in object of type '\(type)'"
        return QueryError(position: 0, message: message)
    }

    /// Compiles `path` starting at `root` (or at its variable's table).
    func compile(_ path: QueryKeyPath, root: TableKey) throws(QueryError) -> CompiledPath {
        if startsAtElement, path.variable == nil { return try compileFromElement(path) }
        var table: TableKey? = root
        if let variable = path.variable {
            guard let bound = variables[variable] else {
                throw QueryError(position: 0, message: "Unknown variable '\(variable)'")
            }
            table = bound
        }
        /// What the steps so far reached: objects of a table, a collection, or a scalar.
        enum Reached { case objects, collection(CollectionKind, isLink: Bool), scalar, mixed }
        var reached: Reached = .objects
        var steps: [CompiledPath.Step] = []
        var toMany = false
        var components = path.components[...]
        while let component = components.popFirst() {
            switch component {
            case .property(let name):
                guard case .objects = reached, let current = table, let schema = snapshot.table(current)?.schema else {
                    throw QueryError(position: 0, message: "Property '\(name)' in '\(path)' does not follow an object")
                }
                guard let column = schema.columnIndex(name) else { throw invalidProperty(name, current) }
                let columnSchema = schema.columns[column]
                let isLink = columnSchema.type == .link
                let target = columnSchema.linkTarget.flatMap(snapshot.tableKey(named:))
                // `list.@count` and `list.@sum` look at the collection; anything else expands it.
                let consumed = columnSchema.collection != .single && components.first.map(Self.consumesCollection) == true
                steps.append(.column(table: current, column: column, kind: columnSchema.collection, isLink: isLink,
                                     target: target, expands: columnSchema.collection != .single && !consumed))
                if consumed {
                    reached = .collection(columnSchema.collection, isLink: isLink)
                    table = target
                    continue
                }
                if columnSchema.collection != .single { toMany = true }
                if isLink {
                    reached = .objects
                    table = target
                } else {
                    reached = columnSchema.type == .mixed ? .mixed : .scalar
                    table = nil
                }
            case .backlinks(let className, let property):
                guard case .objects = reached, let origin = snapshot.table(named: className),
                      let column = origin.schema.columnIndex(property) else {
                    throw QueryError(position: 0, message: "Invalid backlink '@links.\(className).\(property)' in '\(path)'")
                }
                let consumed = components.first.map(Self.consumesCollection) == true
                steps.append(.backlinks(table: origin.key, column: column, expands: !consumed))
                if consumed {
                    reached = .collection(.list, isLink: true)
                } else {
                    reached = .objects
                    toMany = true
                }
                table = origin.key
            case .mapKey(let key):
                steps.append(.mapKey(key))
                if case .collection(.dictionary, let isLink) = reached {
                    reached = isLink ? .objects : .scalar
                } else if case .mixed = reached {
                    reached = .mixed
                } else if toMany, case .objects = reached {
                    throw QueryError(position: 0, message: "A map key cannot follow objects in '\(path)'")
                }
            case .keys, .values:
                steps.append(component == .keys ? .keys : .values)
                toMany = true
                reached = .scalar
            case .count:
                steps.append(.count)
                reached = .scalar
                toMany = false
            case .aggregate(let kind):
                var property: Int?
                if case .collection(_, true) = reached, case .property(let name)? = components.first {
                    components.removeFirst()
                    guard let current = table, let column = snapshot.table(current)?.schema.columnIndex(name) else {
                        throw invalidProperty(name, table ?? root)
                    }
                    property = column
                }
                steps.append(.aggregate(kind, property: property))
                reached = .scalar
                toMany = false
            case .type:
                steps.append(.type)
                reached = .scalar
            }
        }
        return CompiledPath(variable: path.variable, steps: steps, isToMany: toMany,
                            targetTable: { if case .objects = reached { return table } else { return nil } }())
    }

    /// A key path over a primitive element: `self` (or nothing, for `sorted(ascending:)` and
    /// `distinct()`), optionally followed by `@count`/`@size`, `@type`, or a key, `@keys` or
    /// `@values` of a mixed dictionary.
    private func compileFromElement(_ path: QueryKeyPath) throws(QueryError) -> CompiledPath {
        var components = path.components[...]
        if case .property(let name)? = components.first, name.lowercased() == "self" {
            components.removeFirst()
        } else if !components.isEmpty {
            throw QueryError(position: 0, message: "Invalid key path '\(path)': the elements of a collection of "
                             + "primitive values are named 'self', as in 'self > 5' or 'self BEGINSWITH \"a\"'")
        }
        var steps: [CompiledPath.Step] = []
        var toMany = false
        for component in components {
            switch component {
            case .count: steps.append(.count)
            case .type: steps.append(.type)
            case .mapKey(let key): steps.append(.mapKey(key))
            case .keys: steps.append(.keys); toMany = true
            case .values: steps.append(.values); toMany = true
            default:
                throw QueryError(position: 0, message: "Invalid key path '\(path)': a primitive value has no property "
                                 + "'\(component)'")
            }
        }
        return CompiledPath(variable: nil, steps: steps, isToMany: toMany, targetTable: nil)
    }

    private static func consumesCollection(_ component: KeyPathComponent) -> Bool {
        switch component {
        case .count, .aggregate, .keys, .values, .mapKey: return true
        default: return false
        }
    }
}
