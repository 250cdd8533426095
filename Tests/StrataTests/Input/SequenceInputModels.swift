import Strata

/// An owner of dogs, for the tests that give a Realm collection as the value of a to-many
/// property (and take an unmanaged object's collections across `add`).
final class SeqOwner: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var dogs: List<SeqDog>
    @Persisted var dogSet: MutableSet<SeqDog>
    @Persisted var friends: List<SeqOwner>
    @Persisted var numbers: List<Int>
    @Persisted var tags: MutableSet<String>
    @Persisted var scores: Map<String, Int>
}

/// A dog, whose owners are computed from ``SeqOwner/dogs``; declared between persisted
/// properties, so that the array form of `Object(value:)` shows it is not counted.
final class SeqDog: Object {
    @Persisted var name = ""
    @Persisted(originProperty: "dogs") var owners: LinkingObjects<SeqOwner>
    @Persisted var age: Int
}
