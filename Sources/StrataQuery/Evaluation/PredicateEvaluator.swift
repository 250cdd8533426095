import Foundation
import StrataEngine
import StrataSupport

/// Tests objects of one table against a compiled predicate, on one snapshot.
struct PredicateEvaluator {
    let snapshot: Snapshot
    let root: TableKey
    /// For a collection of primitives: the element being tested, where key paths start.
    var element: Value? = nil

    /// An object or a value reached while following a key path.
    private enum Item {
        case object(TableKey, ObjectKey)
        case value(Value)
    }

    /// Whether the object `key` (whose row is `row`) matches.
    func matches(_ predicate: CompiledPredicate, key: ObjectKey, row: Row?, variables: [String: ObjectLink] = [:]) -> Bool {
        switch predicate {
        case .constant(let value):
            return value
        case .and(let parts):
            for part in parts where !matches(part, key: key, row: row, variables: variables) { return false }
            return true
        case .or(let parts):
            for part in parts where matches(part, key: key, row: row, variables: variables) { return true }
            return false
        case .not(let inner):
            return !matches(inner, key: key, row: row, variables: variables)
        case .compare(.path(let path), let op, .value(let constant), let options, _, false)
            where row != nil && path.rootColumn != nil:
            // The common case, a property of the object against a constant: no arrays, no
            // closures (this is the inner loop of a scan).
            return ValueComparison.holds(row![path.rootColumn!], op, constant, options: options)
        case .compare(let left, let op, let right, let options, let quantifier, let typeTest):
            // Paths through links, maps and subqueries: a computation over its CPU budget gives up.
            if CPUDeadline.hasPassed { return false }
            let lefts = values(left, key: key, row: row, variables: variables)
            let rights = values(right, key: key, row: row, variables: variables)
            let test: (Value) -> Bool = { value in
                rights.contains { other in
                    if typeTest, case .string(let actual) = value, case .string(let wanted) = other {
                        let equal = ValueComparison.typeMatches(actual, wanted)
                        return op == .notEqual ? !equal : equal
                    }
                    return ValueComparison.holds(value, op, other, options: options)
                }
            }
            return quantified(lefts, isToMany: left.path?.isToMany == true, quantifier, test)
        case .between(.path(let path), let low, let high, _) where row != nil && path.rootColumn != nil:
            let value = row![path.rootColumn!]
            return ValueComparison.holds(value, .greaterOrEqual, low, options: [])
                && ValueComparison.holds(value, .lessOrEqual, high, options: [])
        case .between(let operand, let low, let high, let quantifier):
            let lefts = values(operand, key: key, row: row, variables: variables)
            return quantified(lefts, isToMany: operand.path?.isToMany == true, quantifier) { value in
                ValueComparison.holds(value, .greaterOrEqual, low, options: [])
                    && ValueComparison.holds(value, .lessOrEqual, high, options: [])
            }
        case .inList(let operand, let list, let quantifier):
            let lefts = values(operand, key: key, row: row, variables: variables)
            return quantified(lefts, isToMany: operand.path?.isToMany == true, quantifier) { value in
                list.contains { ValueComparison.equal(value, $0, []) }
            }
        case .geoWithin(let path, let shape):
            let points = items(path, key: key, row: row, variables: variables)
            return points.contains { item in
                guard case .object(let table, let object) = item, let point = geoPoint(table, object) else { return false }
                return GeoMath.contains(shape, point)
            }
        }
    }

    private func quantified(_ values: [Value], isToMany: Bool, _ quantifier: Quantifier, _ test: (Value) -> Bool) -> Bool {
        guard isToMany else { return values.first.map(test) ?? false }
        switch quantifier {
        case .any: return values.contains(where: test)
        case .all: return values.allSatisfy(test)
        case .none: return !values.contains(where: test)
        }
    }

    private func values(_ operand: CompiledOperand, key: ObjectKey, row: Row?, variables: [String: ObjectLink]) -> [Value] {
        switch operand {
        case .value(let value):
            return [value]
        case .path(let path):
            if let column = path.rootColumn, let row { return [row[column]] }
            return items(path, key: key, row: row, variables: variables).map(Self.value(of:))
        case .subqueryCount(let collection, let variable, let predicate):
            let elements = items(collection, key: key, row: row, variables: variables)
            var count = 0
            for case .object(let table, let object) in elements {
                var bound = variables
                bound[variable] = ObjectLink(table: table, key: object)
                if matches(predicate, key: object, row: nil, variables: bound) { count += 1 }
            }
            return [.int(Int64(count))]
        }
    }

    /// Every value `path` reaches from the object `key`.
    func pathValues(_ path: CompiledPath, key: ObjectKey) -> [Value] {
        items(path, key: key, row: nil, variables: [:]).map(Self.value(of:))
    }

    private static func value(of item: Item) -> Value {
        switch item {
        case .object(let table, let key): .link(ObjectLink(table: table, key: key))
        case .value(let value): value
        }
    }

    private func makeItem(for value: Value, isLink: Bool) -> Item {
        if isLink, case .link(let link) = value { return .object(link.table, link.key) }
        return .value(value)
    }

    /// Follows a key path from the object (or a subquery variable).
    private func items(_ path: CompiledPath, key: ObjectKey, row: Row?, variables: [String: ObjectLink]) -> [Item] {
        var current: [Item]
        var rootRow = row
        if let variable = path.variable, let bound = variables[variable] {
            current = [.object(bound.table, bound.key)]
            rootRow = nil
        } else if let element {
            current = [makeItem(for: element, isLink: true)]
            rootRow = nil
        } else {
            current = [.object(root, key)]
        }
        for step in path.steps {
            var next: [Item] = []
            switch step {
            case .column(let table, let column, let kind, let isLink, _, let expands):
                for item in current {
                    guard case .object(let itemTable, let object) = item, itemTable == table else {
                        if kind == .single { next.append(.value(.null)) }
                        continue
                    }
                    let value: Value
                    if let rowValue = rootRow, itemTable == root, object == key {
                        value = rowValue[column]
                    } else {
                        guard let stored = snapshot.table(table)?.value(of: object, column: column) else { continue }
                        value = stored
                    }
                    guard expands else {
                        next.append(kind == .single ? makeItem(for: value, isLink: isLink) : .value(value))
                        continue
                    }
                    switch value {
                    case .list(let elements), .set(let elements):
                        next.append(contentsOf: elements.map { makeItem(for: $0, isLink: isLink) })
                    case .dictionary(let map):
                        next.append(contentsOf: map.values.map { makeItem(for: $0, isLink: isLink) })
                    default: break
                    }
                }
                rootRow = nil
            case .backlinks(let origin, let column, let expands):
                for case .object(let table, let object) in current {
                    let keys = snapshot.table(table)?.backlinks(to: object)
                        .filter { $0.table == origin && $0.column == column }.map(\.object) ?? []
                    let unique = Array(Set(keys)).sorted()
                    if expands {
                        next.append(contentsOf: unique.map { .object(origin, $0) })
                    } else {
                        next.append(.value(.list(unique.map { .link(ObjectLink(table: origin, key: $0)) })))
                    }
                }
            case .mapKey(let mapKey):
                for case .value(let collection) in current {
                    let value: Value
                    switch collection {
                    case .dictionary(let map): value = map[mapKey] ?? .null
                    case .list(let elements):
                        guard let index = Int(mapKey), elements.indices.contains(index) else { continue }
                        value = elements[index]
                    default: continue
                    }
                    next.append(value.link != nil ? makeItem(for: value, isLink: true) : .value(value))
                }
            case .keys:
                for case .value(.dictionary(let map)) in current { next.append(contentsOf: map.keys.map { .value(.string($0)) }) }
            case .values:
                for case .value(.dictionary(let map)) in current {
                    next.append(contentsOf: map.values.map { $0.link != nil ? makeItem(for: $0, isLink: true) : .value($0) })
                }
            case .count:
                for item in current { next.append(.value(.int(Int64(Self.count(of: item))))) }
            case .aggregate(let kind, let property):
                for case .value(let collection) in current {
                    next.append(.value(aggregate(kind, of: collection, property: property)))
                }
            case .type:
                for item in current { next.append(.value(.string(ValueComparison.typeName(Self.value(of: item))))) }
            }
            current = next
        }
        return current
    }

    private static func count(of item: Item) -> Int {
        switch item {
        case .value(.list(let elements)), .value(.set(let elements)): elements.count
        case .value(.dictionary(let map)): map.count
        case .value(.string(let string)): string.count
        case .value(.binary(let bytes)): bytes.count
        default: 0
        }
    }

    /// `@sum`, `@avg`, `@min`, `@max` of a collection (of a property of each linked object when
    /// `property` is given), with Realm's null rules: nulls are skipped, `@sum` of nothing is 0,
    /// the others of nothing are null.
    func aggregate(_ kind: AggregateKind, of collection: Value, property: Int?) -> Value {
        var elements: [Value]
        switch collection {
        case .list(let values), .set(let values): elements = values
        case .dictionary(let map): elements = map.values
        default: elements = []
        }
        if let property {
            elements = elements.compactMap { element in
                element.link.flatMap { snapshot.table($0.table)?.value(of: $0.key, column: property) }
            }
        }
        return Aggregation.reduce(kind, elements.filter { !$0.isNull })
    }

    /// The (latitude, longitude) of an embedded GeoJSON point: `type == "Point"` and
    /// `coordinates == [longitude, latitude]`.
    private func geoPoint(_ table: TableKey, _ object: ObjectKey) -> GeoCoordinate? {
        guard let schema = snapshot.table(table)?.schema, let row = snapshot.table(table)?.row(object),
              let typeColumn = schema.columnIndex("type"), let coordinatesColumn = schema.columnIndex("coordinates"),
              row[typeColumn] == .string("Point"), case .list(let coordinates) = row[coordinatesColumn],
              coordinates.count >= 2, let longitude = ValueComparison.number(coordinates[0]),
              let latitude = ValueComparison.number(coordinates[1]) else { return nil }
        return GeoCoordinate(latitude: latitude, longitude: longitude)
    }
}
