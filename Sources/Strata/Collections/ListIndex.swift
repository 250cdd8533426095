/// Realm's checks of a `List` index, with its messages: an unmanaged list's mutations and any
/// list's reads trap on an index out of range, as Realm raises. (A managed list's mutations
/// inside a write refuse it as a failure of the write instead: see `List.insert(_:at:)`.)
enum ListIndex {
    /// Traps unless `0 <= index < bound`; `name` is the parameter the index came from.
    static func require(_ index: Int, below bound: Int, name: String = "index") {
        precondition(index >= 0, "Cannot pass a negative value for '\(name)'.")
        precondition(index < bound, "Index \(index) is out of bounds (must be less than \(bound)).")
    }
}
