/// The property names a Swift key path of a Realm object passes through, joined with dots, as
/// Realm Swift's `_name(for:)`: `\Person.dogs[0].name` is `"dogs.name"` (collection subscripts
/// dropped), `\Person.address?.city` is `"address.city"`. Generic code uses it to turn a typed
/// key path into the string that `sorted(byKeyPath:)`, `value(forKeyPath:)` or a query takes.
///
/// Traps when the key path does not reach a `@Persisted` property.
public func _name<T: ObjectBase>(for keyPath: PartialKeyPath<T>) -> String {
    KeyPathTracer.observedNames([keyPath])[0]
}
