/// The property names each dictionary gave while `create(_:value:update:)` filled its objects,
/// so that an update writes only those keys at every level, as Realm does: a nested dictionary
/// for a linked object with a primary key updates that object's given keys, and one for an
/// embedded object updates the existing embedded object in place.
final class GivenKeys: @unchecked Sendable {
    // Safety: created by one `create` call and read and written only on the thread running it;
    // the task-local carries it down the synchronous fill, never to another thread.

    /// The recorder of the `create` call filling objects on this thread, if any.
    @TaskLocal static var current: GivenKeys?

    /// The names given for each filled object (held, so its identifier is not reused).
    private var names: [ObjectIdentifier: (object: ObjectBase, names: Set<String>)] = [:]

    /// Records that `names` were given for `object`.
    func record(_ object: ObjectBase, _ given: Set<String>) {
        names[ObjectIdentifier(object)] = (object, given)
    }

    /// The copy made of each unmanaged object found among the values (held, as `names`).
    private var copies: [ObjectIdentifier: (source: ObjectBase, copy: ObjectBase)] = [:]

    /// The copy `create` makes of an unmanaged object found among its values (Realm copies
    /// them and leaves the object unmanaged), made once per object: an object reached twice, or
    /// through a cycle, has one copy. Nil when a value of it does not convert.
    func copy<T: ObjectBase>(of source: T) -> T? {
        if let made = copies[ObjectIdentifier(source)] { return made.copy as? T }
        let copy = type(of: source).init()
        register(copy, asCopyOf: source)  // before filling: a cycle back to `source` finds it
        do {
            try ObjectValueFiller.fill(copy, from: source)
            return copy
        } catch {
            NestedFailure.current?.record(error)
            return nil
        }
    }

    /// Records `copy` as the copy of `source` (the object `create` was given is the first).
    func register(_ copy: ObjectBase, asCopyOf source: ObjectBase) {
        copies[ObjectIdentifier(source)] = (source, copy)
    }

    /// The names given for `object`, or nil when it was not filled from a value.
    func names(for object: ObjectBase) -> Set<String>? {
        names[ObjectIdentifier(object)]?.names
    }
}
