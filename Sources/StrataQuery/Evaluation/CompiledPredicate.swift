import StrataEngine

/// A predicate resolved against a schema, ready to test objects of one table.
indirect enum CompiledPredicate: Sendable {
    case constant(Bool)
    case and([CompiledPredicate])
    case or([CompiledPredicate])
    case not(CompiledPredicate)
    case compare(CompiledOperand, ComparisonOperator, CompiledOperand, StringOptions, Quantifier, typeTest: Bool)
    case between(CompiledOperand, Value, Value, Quantifier)
    case inList(CompiledOperand, [Value], Quantifier)
    case geoWithin(CompiledPath, GeoShape)
}

/// One side of a compiled comparison.
indirect enum CompiledOperand: Sendable {
    case path(CompiledPath)
    case value(Value)
    case subqueryCount(collection: CompiledPath, variable: String, predicate: CompiledPredicate)

    var path: CompiledPath? {
        if case .path(let path) = self { return path }
        return nil
    }
}

extension PathCompiler {
    /// Compiles a predicate over objects of `table`.
    func compile(_ predicate: QueryPredicate, table: TableKey) throws(QueryError) -> CompiledPredicate {
        switch predicate {
        case .constant(let value):
            return .constant(value)
        case .and(let parts):
            var compiled: [CompiledPredicate] = []
            for part in parts { compiled.append(try compile(part, table: table)) }
            return .and(compiled)
        case .or(let parts):
            var compiled: [CompiledPredicate] = []
            for part in parts { compiled.append(try compile(part, table: table)) }
            return .or(compiled)
        case .not(let inner):
            return .not(try compile(inner, table: table))
        case .comparison(let comparison):
            var left = try compile(comparison.left, table: table)
            var right = try compile(comparison.right, table: table)
            var op = comparison.op
            if left.path == nil, right.path != nil, let mirrored = Self.mirror(op) {
                swap(&left, &right)
                op = mirrored
            }
            let typeTest = left.path?.steps.last == .type
            if !typeTest, case .path(let path) = left, case .value(let value) = right {
                try checkComparable(path, op, value)
            }
            return .compare(left, op, right, comparison.options, comparison.quantifier, typeTest: typeTest)
        case .between(let operand, let lower, let upper, let quantifier):
            guard case .value(let low) = try compile(lower, table: table),
                  case .value(let high) = try compile(upper, table: table) else {
                throw QueryError(position: 0, message: "BETWEEN needs two values")
            }
            let compiledOperand = try compile(operand, table: table)
            if case .path(let path) = compiledOperand {
                try checkComparable(path, .greaterOrEqual, low)
                try checkComparable(path, .lessOrEqual, high)
            }
            return .between(compiledOperand, low, high, quantifier)
        case .inList(let operand, let list, let quantifier):
            let values: [Value]
            switch list {
            case .list(let elements):
                var resolved: [Value] = []
                for element in elements {
                    guard case .value(let value) = try compile(element, table: table) else {
                        throw QueryError(position: 0, message: "IN needs a list of values")
                    }
                    resolved.append(value)
                }
                values = resolved
            case .value(.list(let elements)), .value(.set(let elements)):
                values = elements
            case .keyPath(let collection):
                // `'x' IN tags`, `%@ IN scores`, `name IN aliases`: some element of the
                // collection (a list, a set or a map's values) equals the left side.
                let elements = try compile(collection, root: table)
                let element = try compile(operand, table: table)
                if case .value(let value) = element { try checkComparable(elements, .equal, value) }
                return .compare(.path(elements), .equal, element, [], .any, typeTest: false)
            default:
                throw QueryError(position: 0, message: "IN needs a list of values")
            }
            let compiledOperand = try compile(operand, table: table)
            if case .path(let path) = compiledOperand {
                for value in values { try checkComparable(path, .equal, value) }
            }
            return .inList(compiledOperand, values, quantifier)
        case .geoWithin(let path, let shape):
            return .geoWithin(try compile(path, root: table), shape)
        }
    }

    private func compile(_ operand: Operand, table: TableKey) throws(QueryError) -> CompiledOperand {
        switch operand {
        case .keyPath(let path): return .path(try compile(path, root: table))
        case .value(let value): return .value(value)
        case .argument(let index): throw QueryError(position: 0, message: "argument $\(index) was not bound")
        case .list(let elements):
            var values: [Value] = []
            for element in elements {
                guard case .value(let value) = try compile(element, table: table) else {
                    throw QueryError(position: 0, message: "a list literal holds values only")
                }
                values.append(value)
            }
            return .value(.list(values))
        case .subqueryCount(let collection, let variable, let predicate):
            let compiledCollection = try compile(collection, root: table)
            guard let elementTable = compiledCollection.targetTable, compiledCollection.isToMany else {
                throw QueryError(position: 0, message: "SUBQUERY needs a collection of objects, not '\(collection)'")
            }
            var inner = self
            inner.variables[variable] = elementTable
            return .subqueryCount(collection: compiledCollection, variable: variable,
                                  predicate: try inner.compile(predicate, table: elementTable))
        }
    }

    /// Throws, as Realm does, when a property is compared with a value of a kind it can never
    /// equal or be ordered against (`age > 'eighteen'`, `name BEGINSWITH 5`), instead of quietly
    /// matching nothing. Nulls, mixed properties and lists of values are not checked.
    private func checkComparable(_ path: CompiledPath, _ op: ComparisonOperator, _ value: Value) throws(QueryError) {
        guard case .column(let table, let column, let kind, _, _, let expands)? = path.steps.last,
              kind == .single || expands, let schema = snapshot.table(table)?.schema else { return }
        let type = schema.columns[column].type
        let numeric: Set<ValueType> = [.int, .float, .double, .decimal128]
        let fits: Bool
        switch value {
        case .null, .list, .set, .dictionary: return
        case .int: fits = numeric.contains(type) || type == .mixed || type == .bool
        case .float, .double, .decimal128: fits = numeric.contains(type) || type == .mixed
        case .bool: fits = type == .bool || type == .mixed
        case .string, .binary: fits = type == .string || type == .binary || type == .mixed
        case .timestamp: fits = type == .timestamp || type == .mixed
        case .objectId: fits = type == .objectId || type == .mixed
        case .uuid: fits = type == .uuid || type == .mixed
        case .link: fits = type == .link || type == .mixed
        }
        let stringOperator = [.beginsWith, .endsWith, .contains, .like].contains(op)
        guard fits, !stringOperator || [.string, .binary, .mixed].contains(type) else {
            throw QueryError(position: 0, message: "Unsupported comparison between property '\(schema.columns[column].name)' "
                             + "of type '\(type)' and a value of type '\(ValueComparison.typeName(value))'"
                             + (stringOperator ? " with \(op.rawValue)" : ""))
        }
    }

    private static func mirror(_ op: ComparisonOperator) -> ComparisonOperator? {
        switch op {
        case .equal, .notEqual: op
        case .less: .greater
        case .lessOrEqual: .greaterOrEqual
        case .greater: .less
        case .greaterOrEqual: .lessOrEqual
        default: nil
        }
    }
}
