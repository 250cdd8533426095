import Dispatch

extension ProjectionObservable {
    /// Registers a block called when a projected property of the root object changes or the root
    /// object is deleted, as Realm Swift's `observe(keyPaths:on:_:)` on projections. There is no
    /// initial callback.
    ///
    /// The root object is observed with the projected key paths (`\Person.address?.city` as
    /// `"address.city"`), so changes to properties the projection leaves out never call the
    /// block. Each ``PropertyChange`` is named after the projection's property (`homeCity`), and
    /// its `newValue` is the projected value now. As in Realm, a change to a root property
    /// reports every projected property read through it: if `homeCity` and `homeCountry` both
    /// read `address`, a new city reports both. `oldValue` is nil when this Realm made the
    /// change, and for collections.
    ///
    /// ```swift
    /// let token = projection.observe(keyPaths: ["homeCity"]) { change in
    ///     if case .change(_, let properties) = change { print(properties.map(\.name)) }  // ["homeCity"]
    /// }
    /// ```
    ///
    /// Traps for an unmanaged or deleted root object, inside a write transaction, on a thread
    /// with no scheduler, and for a key path that names no projected property.
    ///
    /// - Parameters:
    ///   - keyPaths: The projected properties that count, by their names in the projection
    ///     (`"homeCity"`) or their key paths on the root (`"address.city"`); nil or empty for
    ///     all of them.
    ///   - queue: Must be nil: delivery on another queue is not supported here yet.
    ///   - block: Called with each change.
    /// - Returns: A token; keep it for as long as you want notifications.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (ObjectChange<Self>) -> Void) -> NotificationToken {
        precondition(queue == nil, "observe(on: queue) is not supported for projections yet: observe the underlying "
                     + "Results or object on the queue instead")
        let schema = ProjectionSchema.properties(of: self)
        var observed = schema
        if let keyPaths, !keyPaths.isEmpty {
            for keyPath in keyPaths {
                precondition(schema.contains { $0.label == keyPath || $0.originPath == keyPath },
                             "'\(keyPath)' is not a projected property of '\(Self.self)'")
            }
            observed = schema.filter { keyPaths.contains($0.label) || keyPaths.contains($0.originPath) }
        }
        let projection = self
        return rootObject.observe(keyPaths: observed.map(\.originPath), on: queue) { (change: ObjectChange<Root>) in
            switch change {
            case .deleted:
                block(.deleted)
            case .error(let error):
                block(.error(error))
            case .change(let root, let rootChanges):
                var changes: [PropertyChange] = []
                for rootChange in rootChanges {
                    for property in observed where property.rootProperty == rootChange.name {
                        changes.append(PropertyChange(name: property.label,
                                                      oldValue: Self.oldValue(of: property, before: rootChange),
                                                      newValue: property.value(in: root)))
                    }
                }
                if !changes.isEmpty { block(.change(projection, changes)) }
            }
        }
    }

    /// Registers a block with the projected properties given as Swift key paths
    /// (`[\PersonProjection.homeCity]`), otherwise as the form that takes their names.
    ///
    /// Traps for a key path that reads no `@Projected` property.
    public func observe(keyPaths: [PartialKeyPath<Self>], on queue: DispatchQueue? = nil,
                        _ block: @escaping (ObjectChange<Self>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths.flatMap(Self.projectedNames), on: queue, block)
    }

    /// The names of the projected properties a key path of the projection reads, found by
    /// reading it on a projection of a traced root object (several when they share one key
    /// path on the root).
    private static func projectedNames(of keyPath: PartialKeyPath<Self>) -> [String] {
        let tracer = KeyPathTracer()
        let projection = Self(projecting: tracer.tracedObject(Root.self))
        _ = projection[keyPath: keyPath]
        let names = tracer.projectedKeyPath.map { read in
            ProjectionSchema.properties(of: projection).filter { $0.keyPath == read }.map(\.label)
        } ?? []
        precondition(!names.isEmpty, "Key path \(keyPath) does not refer to a @Projected property of '\(Self.self)'")
        return names
    }

    /// The projected value before `change`: the projection read on a scratch root holding the
    /// root property's old value; nil when that value is unknown (a local change, a collection)
    /// or its object was deleted.
    private static func oldValue(of property: ProjectionProperty, before change: PropertyChange) -> Any? {
        guard let old = change.oldValue else { return nil }
        if let object = old as? ObjectBase, object.isInvalidated { return nil }
        let scratch = Root()
        scratch[change.name] = old
        return property.value(in: scratch)
    }
}
