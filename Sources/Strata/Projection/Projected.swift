/// Declares a property of a ``Projection`` that reads (and, through a writable key path,
/// writes) a property of the projection's root object, as Realm Swift's `@Projected`.
///
/// The key path may rename a property, go through links and embedded objects, compute a value,
/// or map a `List` or `MutableSet` of objects to one property of each element with `projectTo`:
///
/// ```swift
/// class PersonProjection: Projection<Person> {
///     @Projected(\Person.firstName) var name
///     @Projected(\Person.lastName.localizedUppercase) var lastNameCaps
///     @Projected(\Person.address?.city) var homeCity
///     @Projected(\Person.friends.projectTo.firstName) var friendsFirstNames: ProjectedCollection<String>
/// }
/// ```
///
/// Setting a property whose key path is writable sets the root object's property (inside a
/// write transaction when the root is managed). Setting one whose key path is read-only (a
/// computed value, an optional chain such as `\Person.address?.city`, a `projectTo` mapping)
/// traps.
@propertyWrapper
public struct Projected<T: ObjectBase, Value> {
    /// The key path on the root object this property reads.
    let keyPath: KeyPath<T, Value>

    /// Not available: `@Projected` works only on properties of `Projection` subclasses, through
    /// its enclosing-instance subscript.
    @available(*, unavailable, message: "@Projected can only be used as a property of a Projection")
    public var wrappedValue: Value {
        get { fatalError("@Projected can only be used as a property of a Projection") }
        set { fatalError("@Projected can only be used as a property of a Projection") }
    }

    /// Declares a property that reads `projectedKeyPath` on the projection's root object.
    ///
    /// - Parameter projectedKeyPath: A key path on the root type that reads at least one
    ///   `@Persisted` property.
    public init(_ projectedKeyPath: KeyPath<T, Value>) {
        keyPath = projectedKeyPath
    }

    /// Reads the key path on the projection's root object, and writes it when it is writable.
    public static subscript<EnclosingSelf: Projection<T>>(
        _enclosingInstance projection: EnclosingSelf,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Self>
    ) -> Value {
        get {
            let keyPath = projection[keyPath: storageKeyPath].keyPath
            let root = projection.rootObject
            if let tracer = root.tracer { tracer.projectedKeyPath = keyPath }
            return root[keyPath: keyPath]
        }
        set {
            let keyPath = projection[keyPath: storageKeyPath].keyPath
            guard let writable = keyPath as? ReferenceWritableKeyPath<T, Value> else {
                preconditionFailure("Cannot set '\(wrappedKeyPath)': its key path \(keyPath) on '\(T.className())' is "
                                    + "read-only")
            }
            projection.rootObject[keyPath: writable] = newValue
        }
    }
}

/// A `Projected` property seen without its generic parameters, as the projection's schema
/// reads it.
protocol AnyProjected {
    /// The key path on the root object.
    var anyKeyPath: AnyKeyPath { get }
    /// The root's property names the key path reads, in order (`["address", "city"]`); empty
    /// when it reads no `@Persisted` property.
    func tracedNames() -> [String]
}

extension Projected: AnyProjected {
    var anyKeyPath: AnyKeyPath { keyPath }

    func tracedNames() -> [String] {
        let tracer = KeyPathTracer()
        _ = tracer.tracedObject(T.self)[keyPath: keyPath]
        return tracer.names
    }
}
