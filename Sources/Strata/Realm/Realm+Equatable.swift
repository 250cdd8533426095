/// Realms compare as Realm Swift's do: two `Realm` values are equal when they are the same
/// instance, which the same configuration opened on the same thread (or actor) gives while
/// one is alive. A frozen Realm is a different instance from the live one it was frozen from.
///
/// ```swift
/// #expect(dog.realm == realm)
/// ```
extension Realm: Equatable {
    /// Whether `lhs` and `rhs` are the same Realm instance.
    public static func == (lhs: Realm, rhs: Realm) -> Bool { lhs === rhs }
}
