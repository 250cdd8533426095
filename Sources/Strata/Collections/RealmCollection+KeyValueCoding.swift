import Foundation
import StrataEngine

/// Key-value coding on collections, as Realm Swift's `RealmCollection`: read one property of
/// every element, aggregate with collection operators, and set one property of every element.
extension RealmCollection {
    /// The value of `key` for every element, in order, as an array (`[Any]`; `NSNull` where a
    /// value is nil), as Realm Swift's `value(forKey:)`.
    ///
    /// `key` is a property name for objects, or `"self"` for the elements themselves; a key that
    /// starts with `@` is read as a key path (``value(forKeyPath:)``). An unknown property name
    /// traps with Realm's message.
    ///
    /// - Complexity: O(n).
    public func value(forKey key: String) -> Any? {
        value(forKeyPath: key)
    }

    /// The value at `keyPath` for every element as an array (`[Any]`), or an aggregate, as
    /// Realm Swift's `value(forKeyPath:)`.
    ///
    /// - `"@count"`: the number of elements (`Int`).
    /// - `"@sum.prop"`: the sum of a numeric property (`Int`, `Float`, `Double` or `Decimal128`,
    ///   as the property); nil values are skipped, an empty collection sums to 0.
    /// - `"@avg.prop"`: the mean (`Double`, or `Decimal128`), nil for no values.
    /// - `"@min.prop"`, `"@max.prop"`: the smallest or largest value (numbers, dates,
    ///   decimals), nil for no values.
    /// - `"@unionOfObjects.prop"`: the non-nil values of the property (`[Any]`), in order;
    ///   `"@distinctUnionOfObjects.prop"` each once.
    /// - `"@unionOfArrays.prop"`, `"@distinctUnionOfArrays.prop"`, `"@distinctUnionOfSets.prop"`:
    ///   the elements of a to-many property of every element, all of them or each once.
    /// - `"self"` or `"@sum.self"`: the elements themselves, for collections of values.
    /// - `"owner.name"`: a dotted path followed from each element.
    ///
    /// ```swift
    /// let total = person.dogs.value(forKeyPath: "@sum.age") as? Int
    /// let names = realm.objects(Dog.self).value(forKey: "name") as? [String]
    /// ```
    ///
    /// An unknown property or operator traps with Realm's message.
    ///
    /// - Complexity: O(n).
    public func value(forKeyPath keyPath: String) -> Any? {
        guard keyPath.hasPrefix("@") else { return map { elementValue($0, keyPath) ?? NSNull() } }
        let parts = keyPath.split(separator: ".", maxSplits: 1).map(String.init)
        if parts[0] == "@count" {
            precondition(parts.count == 1, "Invalid key path '\(keyPath)': @count takes no property.")
            return count
        }
        if parts.count == 2, let union = KeyValueCoding.Union(rawValue: parts[0]) {
            return KeyValueCoding.union(union, compactMap { elementValue($0, parts[1]) })
        }
        guard parts.count == 2, let operation = KeyValueCoding.Aggregate(rawValue: parts[0]) else {
            preconditionFailure("Unsupported collection operator in key path '\(keyPath)': use @count, or @sum, "
                                + "@avg, @min, @max, @unionOfObjects, @distinctUnionOfObjects, @unionOfArrays, "
                                + "@distinctUnionOfArrays or @distinctUnionOfSets followed by a property name.")
        }
        let values = compactMap { elementValue($0, parts[1]) }
        return KeyValueCoding.aggregate(operation, values, keyPath: keyPath)
    }

    /// Sets the property named `key` on every element, as Realm Swift's `setValue(_:forKey:)`
    /// (a batch update).
    ///
    /// The elements must be objects. For managed objects this needs a write transaction (traps
    /// otherwise, with Realm's message); the value is converted as ``ObjectBase/setValue(_:forKey:)``
    /// converts. The elements are read first, so an update that moves objects out of a filtered
    /// `Results` still reaches all of them.
    ///
    /// - Complexity: O(n).
    public func setValue(_ value: Any?, forKey key: String) {
        for element in Array(self) {
            guard let object = element as? ObjectBase else {
                preconditionFailure("setValue(_:forKey:) needs a collection of objects; '\(key)' cannot be set on "
                                    + "a value of type '\(type(of: element))'.")
            }
            object.setValue(value, forKey: key)
        }
    }

    /// The value at `keyPath` for one element: the element itself for `self`.
    private func elementValue(_ element: Element, _ keyPath: String) -> Any? {
        if keyPath == "self" { return KeyValueCoding.flattened(element) }
        guard let object = element as? ObjectBase else {
            preconditionFailure("Invalid key path '\(keyPath)' for a collection of '\(Element.self)': only 'self' "
                                + "names the values of a collection of primitives.")
        }
        return object.value(forKeyPath: keyPath)
    }
}

extension KeyValueCoding {
    /// The collection operators that take a property.
    enum Aggregate: String {
        case sum = "@sum", avg = "@avg", min = "@min", max = "@max"
    }

    /// The aggregate of non-nil values (NSNull counts as nil), as Realm's collection operators
    /// compute it.
    static func aggregate(_ operation: Aggregate, _ rawValues: [Any], keyPath: String) -> Any? {
        let values = rawValues.filter { !($0 is NSNull) }
        switch operation {
        case .min, .max:
            var best: Any?
            for value in values {
                guard let current = best else {
                    _ = order(value, value, keyPath)
                    best = value
                    continue
                }
                let less = order(value, current, keyPath)
                if operation == .min ? less : order(current, value, keyPath) { best = value }
            }
            return best
        case .sum:
            return sum(values, keyPath)
        case .avg:
            guard !values.isEmpty else { return nil }
            switch sum(values, keyPath) {
            case let decimal as Decimal128: return decimal / Decimal128(values.count)
            case let total: return LooseNumber(total)!.double! / Double(values.count)
            }
        }
    }

    /// The sum, typed as the values are: `Int` for integers, `Float` for floats, `Decimal128`
    /// for decimals, otherwise `Double`.
    private static func sum(_ values: [Any], _ keyPath: String) -> Any {
        if values.contains(where: { $0 is Decimal128 }) {
            return values.reduce(Decimal128(0)) { total, value in
                guard let decimal = Decimal128._rlmFromAny(value) else { unsupported(value, keyPath) }
                return total + decimal
            }
        }
        let numbers = values.map { value -> LooseNumber in
            guard let number = LooseNumber(value), number.double != nil else { unsupported(value, keyPath) }
            return number
        }
        if numbers.allSatisfy({ if case .integer = $0 { true } else { false } }) {
            return numbers.reduce(0) { total, number in
                total &+ Int(truncatingIfNeeded: number.integer(as: Int64.self)!)
            }
        }
        if !values.isEmpty, values.allSatisfy({ $0 is Float }) {
            return values.reduce(Float(0)) { $0 + ($1 as! Float) }
        }
        return numbers.reduce(0.0) { $0 + $1.double! }
    }

    /// Whether `lhs` orders before `rhs`: numbers, dates and decimals compare.
    private static func order(_ lhs: Any, _ rhs: Any, _ keyPath: String) -> Bool {
        switch (lhs, rhs) {
        case let (left as Date, right as Date): return left < right
        case let (left as Decimal128, right as Decimal128): return left < right
        default:
            guard let left = LooseNumber(lhs)?.double else { unsupported(lhs, keyPath) }
            guard let right = LooseNumber(rhs)?.double else { unsupported(rhs, keyPath) }
            return left < right
        }
    }

    private static func unsupported(_ value: Any, _ keyPath: String) -> Never {
        preconditionFailure("Invalid key path '\(keyPath)': the collection operator needs numbers, dates or "
                            + "decimals, not '\(value)' of type '\(type(of: value))'.")
    }
}
