import StrataSupport

/// One `@Projected` property of a projection class.
struct ProjectionProperty {
    /// The projection's property name (`homeCity`).
    let label: String
    /// The key path on the root object.
    let keyPath: AnyKeyPath
    /// The root's property path the key path reads, as observers name it (`address.city`).
    let originPath: String
    /// The root's top-level property (`address`): the name its object notifications report.
    let rootProperty: String

    /// The property's value on `root`, an optional's `nil` as `nil` (as `PropertyChange` values are).
    func value(in root: ObjectBase) -> Any? {
        guard let value = root[keyPath: keyPath] else { return nil }
        if let optional = value as? any _FlattenableOptional { return optional.flattened }
        return value
    }
}

/// The `@Projected` properties of each projection class, found once per class by reflecting an
/// instance (the property wrappers' storage) and tracing each key path on the root type.
enum ProjectionSchema {
    private static let cache = LockedValueBox<[ObjectIdentifier: [ProjectionProperty]]>([:])

    /// The projected properties of `projection`'s class, in declaration order (superclasses'
    /// first).
    ///
    /// Traps when a `@Projected` key path reads no `@Persisted` property of the root type.
    static func properties<P: ProjectionObservable>(of projection: P) -> [ProjectionProperty] {
        let identifier = ObjectIdentifier(type(of: projection))
        if let known = cache.withLockedValue({ $0[identifier] }) { return known }
        let properties = discover(projection)
        // Two threads may discover the same class at once; both find the same properties.
        cache.withLockedValue { $0[identifier] = properties }
        return properties
    }

    private static func discover<P: ProjectionObservable>(_ projection: P) -> [ProjectionProperty] {
        var mirrors: [Mirror] = []
        var mirror: Mirror? = Mirror(reflecting: projection)
        while let current = mirror {
            mirrors.append(current)
            mirror = current.superclassMirror
        }
        var properties: [ProjectionProperty] = []
        for mirror in mirrors.reversed() {
            for child in mirror.children {
                guard let projected = child.value as? any AnyProjected, let label = child.label else { continue }
                // The wrapper's storage is the declared name with a leading underscore.
                let name = label.hasPrefix("_") ? String(label.dropFirst()) : label
                let names = projected.tracedNames()
                precondition(!names.isEmpty, "@Projected property '\(name)' of '\(P.self)' must read a @Persisted "
                             + "property of '\(P.Root.className())'")
                properties.append(ProjectionProperty(label: name, keyPath: projected.anyKeyPath,
                                                     originPath: names.joined(separator: "."), rootProperty: names[0]))
            }
        }
        return properties
    }
}
