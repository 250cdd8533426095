/// Realms compare as Realm Swift's do: two `Realm` values are equal when they are the same
/// Realm, that is the same file opened on the same thread, queue or actor (Realm Swift returns
/// one cached instance for those; Strata's instances share one state). A frozen Realm is never
/// equal to the live one it was frozen from.
///
/// ```swift
/// #expect(dog.realm == realm)
/// ```
extension Realm: Equatable {
    /// Whether `lhs` and `rhs` are the same file opened on the same thread, queue or actor (or
    /// the same frozen Realm).
    public static func == (lhs: Realm, rhs: Realm) -> Bool { lhs.state === rhs.state }
}
