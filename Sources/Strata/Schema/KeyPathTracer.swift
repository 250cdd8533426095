/// Turns a Swift key path over a model class into property names, as Realm Swift does: it
/// reads the key path on a throwaway instance whose `@Persisted` getters record which property
/// they are (found by the storage's offset) instead of reading a Realm.
///
/// `\Dog.owner?.name` → `["owner", "name"]`: a link property returns another traced instance so
/// the path can go on, and a `List` or `MutableSet` one a traced collection whose `projectTo`
/// goes on into its elements (`\Person.friends.projectTo.name` → `["friends", "name"]`).
public final class KeyPathTracer {
    @usableFromInline init() {}

    private(set) var names: [String] = []
    /// The root key path of the last `@Projected` property read on a projection of a traced
    /// object: which projected property a key path of the projection reads.
    var projectedKeyPath: AnyKeyPath?

    /// Records the property whose storage is at `offset` inside an instance of `type`.
    @usableFromInline func record(offset: Int, in type: ObjectBase.Type) {
        let info = ClassInfo.known(type)
        guard let property = info.properties.first(where: { $0.offset == offset }) else {
            preconditionFailure("Could not find the property of '\(info.className)' at offset \(offset)")
        }
        names.append(property.name)
    }

    /// Records property names read past a collection (`projectTo.name` after `friends`).
    func record(names more: [String]) {
        names.append(contentsOf: more)
    }

    /// A traced instance of `type`, for a link's getter to return.
    func tracedObject<T: ObjectBase>(_ type: T.Type) -> T {
        let object = type.init()
        object.tracer = self
        return object
    }

    /// The property names `keyPath` reads, in order.
    ///
    /// Traps with a message when the key path reads no `@Persisted` property.
    static func names<Root: ObjectBase, Value>(of keyPath: KeyPath<Root, Value>) -> [String] {
        let tracer = KeyPathTracer()
        let object = tracer.tracedObject(Root.self)
        _ = object[keyPath: keyPath]
        precondition(!tracer.names.isEmpty, "Key path \(keyPath) does not refer to a @Persisted property of "
                     + "'\(Root.className())'")
        return tracer.names
    }

    /// The dotted name of `keyPath` (`"owner.name"`), as Realm Swift's `_name(for:)`.
    static func dottedName<Root: ObjectBase, Value>(of keyPath: KeyPath<Root, Value>) -> String {
        names(of: keyPath).joined(separator: ".")
    }
}
