import StrataEngine

/// A type that presents an object through other properties, as Realm Swift's
/// `ProjectionObservable`: ``Projection`` adopts it, and projection observation is defined on it.
///
/// Subclass ``Projection`` rather than adopting this protocol directly.
public protocol ProjectionObservable: AnyObject {
    /// The type of the projected object: an `Object` or `EmbeddedObject` subclass.
    associatedtype Root: ObjectBase
    /// The projected object.
    var rootObject: Root { get }
    /// Creates a projection of `object`.
    init(projecting object: Root)
}

/// A light view model over an `Object` or `EmbeddedObject`, as Realm Swift's `Projection`: its
/// ``Projected`` properties read and write the root object's properties, under names and in
/// shapes of your choosing.
///
/// ```swift
/// class Person: Object {
///     @Persisted var firstName = ""
///     @Persisted var lastName = ""
///     @Persisted var address: Address?
///     @Persisted var friends: List<Person>
/// }
///
/// class PersonProjection: Projection<Person> {
///     @Projected(\Person.firstName) var firstName                  // pass-through
///     @Projected(\Person.lastName.localizedUppercase) var lastNameCaps  // computed, read-only
///     @Projected(\Person.address?.city) var homeCity                // through an embedded object
///     @Projected(\Person.friends.projectTo.firstName) var friendsFirstNames: ProjectedCollection<String>
/// }
///
/// let people: Results<PersonProjection> = realm.objects(PersonProjection.self)
/// let single = PersonProjection(projecting: person)
/// ```
///
/// A projection holds no data of its own: reads go to the root object (live, when it is
/// managed), and writes through a writable key path change the root object, so a managed root
/// needs a write transaction as usual. A root's properties that no `@Projected` property names
/// are left out of its `observe(keyPaths:on:_:)`. An unmanaged object can be
/// projected too; it can be read and written but not observed.
open class Projection<Root: ObjectBase & RealmCollectionValue>: RealmCollectionValue, ProjectionObservable,
    CustomStringConvertible {
    /// The type a projection is stored as where a collection holds it: its root object's type.
    public typealias PersistedType = Root

    /// The projected object.
    public let rootObject: Root

    /// Creates a projection of `object`, managed or not.
    ///
    /// Reads the projection's declaration the first time a projection of its class is made, and
    /// traps there when a `@Projected` key path reads no `@Persisted` property of `Root`.
    ///
    /// - Parameter object: The object to project.
    public required init(projecting object: Root) {
        rootObject = object
        _ = ProjectionSchema.properties(of: self)
    }

    /// The Realm managing the root object, or nil when it is unmanaged.
    public var realm: Realm? { rootObject.realm }

    /// Whether the root object was deleted from its Realm or the Realm was invalidated.
    public var isInvalidated: Bool { rootObject.isInvalidated }

    /// The projection's class and root type, then each projected property with its key path on
    /// the root and its value, as Realm Swift prints projections.
    open var description: String {
        let header = "\(type(of: self))<\(Root.self)> <\(Unmanaged.passUnretained(rootObject).toOpaque())>"
        if isInvalidated { return header + " [invalid object]" }
        // A key path through a link that is nil prints nil without being evaluated:
        // `\.address!.country` of a person without an address would trap, and printing must not.
        let lines = ProjectionSchema.properties(of: self).map { property in
            let value = linksAreSet(along: property.originPath) ? property.value(in: rootObject) : nil
            return "\t\(property.label)(\\.\(property.originPath)) = \(Self.describe(value));"
        }
        return header + " {\n" + lines.joined(separator: "\n") + "\n}"
    }

    /// Whether every object link on `path` before its last property is set (a collection on the
    /// way ends the check: the key path maps its elements).
    private func linksAreSet(along path: String) -> Bool {
        var current: Any = rootObject
        for name in path.split(separator: ".").dropLast() {
            guard let object = current as? ObjectBase else { return true }
            guard let next = object[String(name)].flatMap(KeyValueCoding.flattened) else { return false }
            current = next
        }
        return true
    }

    private static func describe(_ value: Any?) -> String {
        switch value {
        case nil: return "nil"
        case let object as ObjectBase: return "\(type(of: object).className()) object"
        case let value?: return "\(value)"
        }
    }

    // MARK: - Equatable, Hashable

    /// Whether two projections project the same object: the same row of the same Realm when
    /// managed (whatever the projection classes), the same instance when unmanaged.
    public static func == (lhs: Projection, rhs: Projection) -> Bool {
        lhs.rootObject.isSameObject(as: rhs.rootObject)
    }

    /// Hashes the projected object's identity, consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        if let handle = rootObject.handle {
            hasher.combine(ObjectIdentifier(handle.realm.state))
            hasher.combine(handle.table.key)
            hasher.combine(handle.key)
        } else {
            hasher.combine(ObjectIdentifier(rootObject))
        }
    }

    // MARK: - Persistable

    /// The root type's column: a collection of projections would hold links to root objects.
    public static var _rlmColumn: _ColumnDescription { Root._rlmColumn }

    /// Traps: a projection has no default, it needs an object to project.
    public static func _rlmDefaultValue() -> Self {
        preconditionFailure("A projection has no default value: create it with init(projecting:)")
    }

    /// A projection of the stored root object.
    public static func _rlmFromStored(_ value: StrataEngine.Value, _ context: _ReadContext) -> Self {
        Self(projecting: Root._rlmFromStored(value, context))
    }

    /// The root object's stored form.
    public func _rlmToStored(_ context: _WriteContext) -> StrataEngine.Value {
        rootObject._rlmToStored(context)
    }

    /// The projection itself, or a projection of a root object.
    public static func _rlmFromAny(_ value: Any) -> Self? {
        if let projection = value as? Self { return projection }
        return (value as? Root).map { Self(projecting: $0) }
    }
}
