import StrataEngine

/// Key paths: `a.b.c`, `list.@count`, `map['key']`, `map[$0]`, `$x.prop`.
extension Parser {
    /// A key path from a property name or a declared subquery variable.
    mutating func parseKeyPath(expecting what: String = "a key path") throws(QueryError) -> QueryKeyPath {
        var variable: String?
        var components: [KeyPathComponent] = []
        let first = current
        switch first.kind {
        case .variable(let name):
            guard variables.contains(name) else {
                throw QueryError(position: first.start, problem: "unknown variable '\(name)': no enclosing SUBQUERY declares it")
            }
            variable = name
        case .word(let name) where !Self.reservedWords.contains(first.keyword):
            components.append(.property(name))
        case .attribute("links"):
            components.append(try parseBacklinks())
        default:
            throw expected(what)
        }
        advance()
        while true {
            if isAt(".") {
                advance()
                switch current.kind {
                case .word(let name): components.append(.property(name))
                case .attribute("links"): components.append(try parseBacklinks())
                case .attribute(let name): components.append(try attributeComponent(name))
                default: throw expected("a property name or an attribute such as '@count'")
                }
                advance()
            } else if isAt("[") {
                advance()
                switch current.kind {
                case .literal(.string(let key)):
                    components.append(.mapKey(key))
                case .argument(let number):
                    guard case .string(let key) = try valueArgument(number) else {
                        throw QueryError(position: current.start, problem: "argument $\(number) must be a string to be used as a dictionary key")
                    }
                    components.append(.mapKey(key))
                default:
                    throw expected("a quoted dictionary key or a $n argument")
                }
                advance()
                try expect("]", "']' to end the dictionary key")
            } else {
                return QueryKeyPath(components, variable: variable)
            }
        }
    }

    /// `@links.Class.property` (the current token is `@links`): the objects of `Class` whose
    /// `property` links here. Leaves the cursor on the property name.
    private mutating func parseBacklinks() throws(QueryError) -> KeyPathComponent {
        advance()
        try expect(".", "'.' and a class name after '@links'")
        guard case .word(let className) = current.kind else { throw expected("a class name after '@links.'") }
        advance()
        try expect(".", "'.' and a property name after '@links.\(className)'")
        guard case .word(let property) = current.kind else { throw expected("a property name after '@links.\(className).'") }
        return .backlinks(table: className, property: property)
    }

    /// The component for `@name` (the current token).
    private func attributeComponent(_ name: String) throws(QueryError) -> KeyPathComponent {
        switch name {
        case "count", "size": return .count
        case "sum": return .aggregate(.sum)
        case "avg": return .aggregate(.avg)
        case "min": return .aggregate(.min)
        case "max": return .aggregate(.max)
        // `@allKeys`/`@allValues` (the lexer lowercases attributes): the names Realm Swift's
        // typed queries write for a map's keys and values, accepted as Realm accepts them.
        case "keys", "allkeys": return .keys
        case "values", "allvalues": return .values
        case "type": return .type
        default:
            throw QueryError(position: current.start,
                             problem: "unknown attribute \(describe(current)); expected @count, @size, @sum, @avg, @min, @max, @keys, @values or @type")
        }
    }
}
