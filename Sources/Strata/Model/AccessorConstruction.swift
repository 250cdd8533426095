import StrataEventLoop

/// Whether this thread is making a managed accessor (``Realm/accessor(_:table:key:)`` runs the
/// model's `init()` and then binds it to its row). A `@Persisted` property whose type's default
/// is made anew at each call (an `ObjectId`, a `UUID`, `Date()`) gives an unmanaged object a box
/// that makes the default once (see `Persisted.State.unmanagedGenerated`); an accessor reads its
/// row instead, so its properties skip the box, and making an accessor allocates nothing more
/// (only accessors of classes with such a property are made under the mark:
/// ``ClassInfo/hasGeneratedDefaults``).
@usableFromInline
enum AccessorConstruction {
    private final class Token: Sendable {}

    private static let marker = ThreadLocalMarker()
    private static let token = Token()

    /// Whether the model `init()` running on this thread makes a managed accessor.
    @usableFromInline static var isActive: Bool { marker.current != nil }

    /// Runs `body` (which makes an accessor) with ``isActive`` set on this thread.
    static func run<T>(_ body: () -> T) -> T { marker.withValue(token, body) }
}
