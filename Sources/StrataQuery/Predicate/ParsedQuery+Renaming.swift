/// Where a model's property names differ from its columns' (custom column names): how to find a
/// property's column, and the class its links lead to.
package protocol PropertyNaming {
    /// The column `property` of objects of `className` is stored in, and the class of the
    /// objects it links to (nil for a value); nil when the class has no such property.
    func column(of property: String, in className: String) -> (column: String, target: String?)?
}

extension ParsedQuery {
    /// The query with every property name of its key paths (predicate, sort, distinct) replaced
    /// by its column's name, for a query over objects of `root`: key paths through links and
    /// `@links`, and subquery variables, are followed class by class. Names that `naming` does
    /// not know stay as they are (the compiler reports them).
    package func renamingProperties(root: String, _ naming: some PropertyNaming) -> ParsedQuery {
        let renamer = PropertyRenamer(naming: naming)
        var renamed = self
        renamed.predicate = renamer.rename(predicate, root: root, variables: [:])
        renamed.sort = sort.map {
            SortKey(renamer.rename($0.keyPath, root: root, variables: [:]).path, ascending: $0.ascending)
        }
        renamed.distinct = distinct.map { renamer.rename($0, root: root, variables: [:]).path }
        return renamed
    }
}

private struct PropertyRenamer<Naming: PropertyNaming> {
    let naming: Naming

    func rename(_ predicate: QueryPredicate, root: String, variables: [String: String]) -> QueryPredicate {
        switch predicate {
        case .constant:
            return predicate
        case .and(let parts):
            return .and(parts.map { rename($0, root: root, variables: variables) })
        case .or(let parts):
            return .or(parts.map { rename($0, root: root, variables: variables) })
        case .not(let inner):
            return .not(rename(inner, root: root, variables: variables))
        case .comparison(var comparison):
            comparison.left = rename(comparison.left, root: root, variables: variables)
            comparison.right = rename(comparison.right, root: root, variables: variables)
            return .comparison(comparison)
        case .between(let operand, let lower, let upper, let quantifier):
            return .between(rename(operand, root: root, variables: variables),
                            lower: rename(lower, root: root, variables: variables),
                            upper: rename(upper, root: root, variables: variables), quantifier: quantifier)
        case .inList(let operand, let list, let quantifier):
            return .inList(rename(operand, root: root, variables: variables),
                           rename(list, root: root, variables: variables), quantifier: quantifier)
        case .geoWithin(let path, let shape):
            return .geoWithin(rename(path, root: root, variables: variables).path, shape)
        }
    }

    func rename(_ operand: Operand, root: String, variables: [String: String]) -> Operand {
        switch operand {
        case .keyPath(let path):
            return .keyPath(rename(path, root: root, variables: variables).path)
        case .list(let items):
            return .list(items.map { rename($0, root: root, variables: variables) })
        case .subqueryCount(let collection, let variable, let predicate):
            let (path, elementClass) = rename(collection, root: root, variables: variables)
            var inner = variables
            inner[variable] = elementClass
            return .subqueryCount(collection: path, variable: variable,
                                  predicate: rename(predicate, root: root, variables: inner))
        case .value, .argument:
            return operand
        }
    }

    /// The path in column names, and the class it ends in (nil past a value or an unknown name).
    func rename(_ path: QueryKeyPath, root: String, variables: [String: String])
        -> (path: QueryKeyPath, target: String?) {
        var current: String? = path.variable.map { variables[$0] } ?? root
        var renamed = path
        for index in renamed.components.indices {
            switch renamed.components[index] {
            case .property(let name):
                guard let className = current, let found = naming.column(of: name, in: className) else {
                    current = nil
                    continue
                }
                renamed.components[index] = .property(found.column)
                current = found.target
            case .backlinks(let table, let property):
                if let found = naming.column(of: property, in: table) {
                    renamed.components[index] = .backlinks(table: table, property: found.column)
                }
                current = table
            case .mapKey, .count, .aggregate, .keys, .values, .type:
                // A map of objects continues in its values' class; counts and aggregates end the path.
                continue
            }
        }
        return (renamed, current)
    }
}
