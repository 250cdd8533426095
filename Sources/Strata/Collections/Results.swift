import Foundation
import StrataEngine

/// The objects of a type in a Realm, as Realm Swift's `Results`: lazy (nothing is read until
/// it is used) and live (it always shows the Realm's current version).
///
/// This is the collection `realm.objects(T.self)` returns. Filtering, sorting and
/// notifications come with the query engine; today it is every object of the type, in
/// creation order.
public struct Results<Element: RealmCollectionValue>: RandomAccessCollection, CustomStringConvertible {
    /// The Realm the results read.
    public let realm: Realm?
    private let table: () -> TableInfo?
    private let make: (TableInfo, ObjectKey) -> Element

    init(realm: Realm, table: @escaping () -> TableInfo?, make: @escaping (TableInfo, ObjectKey) -> Element) {
        self.realm = realm
        self.table = table
        self.make = make
    }

    private var current: (TableInfo, Table)? {
        guard let realm, let info = table() else { return nil }
        realm.verifyThread()
        guard let table = realm.readSnapshot.table(info.key) else { return nil }
        return (info, table)
    }

    /// Whether the Realm was invalidated.
    public var isInvalidated: Bool { realm?.isInvalidated ?? false }

    public var startIndex: Int { 0 }

    /// The number of objects.
    ///
    /// - Complexity: O(1).
    public var endIndex: Int { current?.1.count ?? 0 }

    /// The object at `position`, in creation order.
    ///
    /// - Complexity: O(log n).
    public subscript(position: Int) -> Element {
        guard let (info, table) = current, position >= 0, position < table.count else {
            preconditionFailure("Index \(position) is out of bounds (must be less than \(endIndex)).")
        }
        return make(info, table.object(at: position))
    }

    public var description: String { "Results<\(Element.self)> (\(count) objects)" }
}

extension Realm {
    /// Every object of `type` in the Realm, live.
    public func objects<Element: Object>(_ type: Element.Type) -> Results<Element> {
        verifyThread()
        let info = ClassInfo.known(type)
        return Results(realm: self, table: { [unowned self] in tableInfo(for: info) }) { [unowned self] table, key in
            accessor(Element.self, table: table, key: key)
        }
    }

    /// The object of `type` whose primary key is `key`, or nil; `nil` is a valid key for an
    /// optional primary key.
    ///
    /// Traps when the type has no primary key or `key` is not a value of its type.
    public func object<Element: Object, KeyType>(ofType type: Element.Type, forPrimaryKey key: KeyType) -> Element? {
        verifyThread()
        let info = ClassInfo.known(type)
        guard let primaryKey = info.primaryKey else {
            preconditionFailure("'\(info.className)' does not have a primary key")
        }
        guard let table = tableInfo(for: info) else { return nil }
        let property = info.properties[primaryKey]
        let context = _WriteContext(realm: self, update: .error)
        let anyKey: Any = Self.unwrapped(key)
        guard let stored = ObjectHandle.stored(anyKey, as: property.accessor.valueType, context) else {
            preconditionFailure("Invalid value '\(key)' of type '\(KeyType.self)' for '\(info.className)' primary key")
        }
        guard let object = readSnapshot.table(table.key)?.object(forPrimaryKey: stored) else { return nil }
        return accessor(type, table: table, key: object)
    }
}

extension Realm {
    /// `value`, with an optional's `nil` as `NSNull` so loose conversion sees a null.
    static func unwrapped(_ value: Any) -> Any {
        if let optional = value as? any OptionalProtocol, optional.isNone { return NSNull() }
        return value
    }
}

/// Lets code ask whether an `Any` holds `Optional.none`.
protocol OptionalProtocol {
    var isNone: Bool { get }
}

extension Optional: OptionalProtocol {
    var isNone: Bool { self == nil }
}
