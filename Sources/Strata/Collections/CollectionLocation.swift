import StrataEngine

/// One step into a nested mixed collection: a list index or a dictionary key.
enum NestedKey: Hashable {
    case index(Int)
    case key(String)
}

/// Where a managed collection lives: a property of an object, and, for a collection nested in
/// an `AnyRealmValue`, the path inside it.
struct CollectionLocation {
    let realm: Realm
    let table: TableKey
    let object: ObjectKey
    let column: Int
    var path: [NestedKey] = []
    /// The Realm's ``RealmState/invalidations`` when the collection was read: once
    /// ``Realm/invalidate()`` counts past it, the collection stays invalidated, as its owner does.
    let epoch: UInt32

    init(_ context: _ReadContext) {
        realm = context.realm
        table = context.table
        object = context.object
        column = context.column
        path = context.path
        epoch = realm.state.invalidations
    }

    /// Whether the Realm was invalidated since the collection was read.
    var isStale: Bool { epoch != realm.state.invalidations }

    /// The context for reading the element at `step` of this collection.
    func elementContext(_ step: NestedKey) -> _ReadContext {
        _ReadContext(realm: realm, table: table, object: object, column: column, path: path + [step])
    }

    var propertyPath: PropertyPath { PropertyPath(table: table, object: object, column: column) }

    /// The collection's stored value at the Realm's current version; traps when the owning
    /// object was deleted (Realm: "Object has been deleted or invalidated.").
    var value: StrataEngine.Value {
        realm.verifyThread()
        guard !isStale, let top = realm.readSnapshot.table(table)?.value(of: object, column: column) else {
            if case .failed = realm.writeState { return .null }
            preconditionFailure("Object has been deleted or invalidated.")
        }
        return top.nested(at: path) ?? .null
    }

    /// Whether the owning object still exists.
    var exists: Bool { !isStale && realm.readSnapshot.table(table)?.contains(object) == true && value != .null }

    /// Applies a mutation: with `granular` as engine collection instructions for a top-level
    /// collection property, otherwise by rewriting the whole top-level value with `whole`.
    /// Failures cancel the write (see `Realm.recordWriteFailure`).
    func mutate(
        _ what: String,
        granular: (WriteTransaction, PropertyPath) throws -> Void,
        whole: (inout StrataEngine.Value) throws -> Void
    ) {
        _ = realm.requireWrite(modifying: what)
        guard let transaction = realm.transaction else { return }
        do {
            if path.isEmpty {
                try granular(transaction, propertyPath)
            } else {
                guard var top = transaction.snapshot.table(table)?.value(of: object, column: column) else {
                    preconditionFailure("Object has been deleted or invalidated.")
                }
                try top.modifyNested(at: path, whole)
                try transaction.setValue(top, at: propertyPath)
            }
        } catch let error as Realm.Error {
            realm.recordWriteFailure(error)
        } catch {
            realm.recordWriteFailure(Realm.Error.wrap(error))
        }
    }
}

extension StrataEngine.Value {
    /// The value at `path` inside nested lists and dictionaries.
    func nested(at path: [NestedKey]) -> StrataEngine.Value? {
        var current = self
        for step in path {
            switch (step, current) {
            case (.index(let index), .list(let elements)) where elements.indices.contains(index):
                current = elements[index]
            case (.key(let key), .dictionary(let map)):
                guard let next = map[key] else { return nil }
                current = next
            default:
                return nil
            }
        }
        return current
    }

    /// Changes the value at `path` in place.
    mutating func modifyNested(at path: [NestedKey], _ body: (inout StrataEngine.Value) throws -> Void) throws {
        guard let step = path.first else { return try body(&self) }
        let rest = Array(path.dropFirst())
        switch (step, self) {
        case (.index(let index), .list(var elements)) where elements.indices.contains(index):
            try elements[index].modifyNested(at: rest, body)
            self = .list(elements)
        case (.key(let key), .dictionary(var map)):
            var inner = map[key] ?? .null
            try inner.modifyNested(at: rest, body)
            map[key] = inner
            self = .dictionary(map)
        default:
            throw Realm.Error(Realm.Error.invalidInput, "The nested collection no longer exists")
        }
    }
}

/// Identity of collection classes: managed instances are identified by where they live, so two
/// accessors of one property are equal; unmanaged instances are equal only to themselves.
enum CollectionIdentity {
    static func equal(_ lhs: AnyObject, _ left: CollectionLocation?, _ rhs: AnyObject, _ right: CollectionLocation?) -> Bool {
        if lhs === rhs { return true }
        guard let left, let right else { return false }
        return left.realm.state === right.realm.state && left.propertyPath == right.propertyPath && left.path == right.path
    }

    static func hash(_ object: AnyObject, _ location: CollectionLocation?, into hasher: inout Hasher) {
        if let location {
            hasher.combine(location.propertyPath)
            hasher.combine(location.path)
        } else {
            hasher.combine(ObjectIdentifier(object))
        }
    }
}
