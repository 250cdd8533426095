import Foundation
import StrataEngine

/// A top-level model object, as in Realm Swift: subclass it and declare `@Persisted`
/// properties.
///
/// ```swift
/// class Person: Object {
///     @Persisted(primaryKey: true) var id = 0
///     @Persisted var name = ""
///     @Persisted var dogs: List<Dog>
/// }
/// let realm = try Realm()
/// try realm.write { realm.add(Person(value: ["id": 1, "name": "Ada"])) }
/// ```
///
/// Managed objects with a primary key are equal when they are the same row; managed objects
/// without one are equal only to themselves (use ``ObjectBase/isSameObject(as:)``).
///
/// As in Realm Swift, `Object` is not `Identifiable` itself: declare
/// `class Item: Object, ObjectKeyIdentifiable` to get a stable `id`.
open class Object: ObjectBase {
    /// Creates an unmanaged object with default values.
    public required init() {
        super.init()
    }

    /// Creates an unmanaged object from a dictionary of property values, an array of values in
    /// property order, or another object.
    ///
    /// A dictionary is read by property name (keys that are not properties are ignored); an array
    /// gives values in property order. Values may come straight from `JSONSerialization`
    /// (`NSNumber`, `NSNull` for nil, nested arrays and dictionaries). Linked and embedded
    /// objects and collections given as dictionaries or arrays are created too. Traps with
    /// Realm's message on a value of the wrong type, as Realm raises.
    public convenience init(value: Any) {
        self.init()
        do {
            try ObjectValueFiller.fill(self, from: value)
        } catch {
            preconditionFailure(error.message)
        }
    }

    /// The name of the primary key property, or nil.
    ///
    /// Declare the key with `@Persisted(primaryKey: true)`. Realm's older spelling, an override
    /// returning a property name, is honoured too when it names a `@Persisted` property of a
    /// primary-key type (schema discovery throws ``Realm/Error`` with code `invalidSchema`
    /// otherwise, with the `@Persisted` spelling to use).
    open class func primaryKey() -> String? {
        // The base class declares no property (and is no model, so it has no schema).
        if LegacyDeclarations.isReading || self == Object.self { return nil }
        let info = ClassInfo.known(self)
        return info.primaryKey.map { info.properties[$0].name }
    }

    /// The object schema of this class.
    open class func sharedSchema() -> ObjectSchema? {
        (try? ClassInfo.of(self)).map(ObjectSchema.init)
    }
}

extension Object: Equatable, Hashable {
    /// Realm's equality: an object is equal to itself; accessors of the same object are equal
    /// when its class has a primary key, or when both are frozen at the same version (frozen
    /// objects compare by row).
    public static func == (lhs: Object, rhs: Object) -> Bool {
        if lhs === rhs { return true }
        guard type(of: lhs) == type(of: rhs), let left = lhs.handle, let right = rhs.handle,
              left.table.key == right.table.key, left.key == right.key else { return false }
        if left.table.classInfo.primaryKey != nil { return left.realm.state === right.realm.state }
        return left.realm.isFrozen && right.realm.isFrozen && left.realm.store === right.realm.store
            && left.realm.version == right.realm.version
    }

    public func hash(into hasher: inout Hasher) {
        if let handle, handle.table.classInfo.primaryKey != nil || handle.realm.isFrozen {
            hasher.combine(handle.table.key)
            hasher.combine(handle.key)
        } else {
            hasher.combine(ObjectIdentifier(self))
        }
    }
}

/// A model object owned by exactly one parent object, as in Realm Swift.
///
/// It cannot be added to a Realm on its own: assign it to a parent's property (or put it in a
/// parent's list or map). It is deleted with its parent, or when the parent's property is
/// given another value. It has no primary key.
open class EmbeddedObject: ObjectBase {
    /// Creates an unmanaged embedded object with default values.
    public required init() {
        super.init()
    }

    /// Creates an unmanaged embedded object from a dictionary, an array in property order, or
    /// another object, as ``Object/init(value:)`` does.
    public convenience init(value: Any) {
        self.init()
        do {
            try ObjectValueFiller.fill(self, from: value)
        } catch {
            preconditionFailure(error.message)
        }
    }
}

extension EmbeddedObject: Equatable, Hashable {
    public static func == (lhs: EmbeddedObject, rhs: EmbeddedObject) -> Bool { lhs.isSameObject(as: rhs) }

    public func hash(into hasher: inout Hasher) {
        if let handle {
            hasher.combine(handle.table.key)
            hasher.combine(handle.key)
        } else {
            hasher.combine(ObjectIdentifier(self))
        }
    }
}

/// Gives model objects and projections a stable `id`, as Realm Swift's protocol of that name:
/// declare it on the model (`class Item: Object, ObjectKeyIdentifiable`).
///
/// A managed object's `id` comes from its table and object key: every accessor of the object,
/// in any `Realm` instance of the file, at any version, has the same `id`, and two objects
/// never share one. An unmanaged object's `id` is the instance's identity (it changes when the
/// object is added, as in Realm). A projection's `id` is its root object's.
public protocol ObjectKeyIdentifiable: Identifiable {}

extension ObjectBase {
    /// The `ObjectKeyIdentifiable` id: the table and object key when managed, the instance's
    /// identity otherwise.
    var objectKeyIdentifier: UInt64 {
        guard let handle else { return UInt64(UInt(bitPattern: ObjectIdentifier(self).hashValue)) }
        return UInt64(handle.table.key.rawValue) << 48 ^ UInt64(bitPattern: handle.key.rawValue)
    }
}

extension ObjectKeyIdentifiable where Self: ObjectBase {
    /// The same number for every accessor of one managed object, across Realm instances and
    /// refreshes; the instance's identity while unmanaged.
    public var id: UInt64 { objectKeyIdentifier }
}

extension ObjectKeyIdentifiable where Self: ProjectionObservable {
    /// The `id` of the projected root object.
    public var id: UInt64 { rootObject.objectKeyIdentifier }
}
