/// A change to an observed collection, as Realm Swift's `RealmCollectionChange`.
///
/// `deletions` and `modifications` are indices in the collection as it was at the previous
/// notification, `insertions` indices in the collection as it is now; all ascending, in the
/// form a table view applies as one batch. A move is a deletion plus an insertion.
///
/// ```swift
/// let token = dogs.observe { change in
///     switch change {
///     case .initial(let dogs): print("\(dogs.count) dogs")
///     case .update(_, let deletions, let insertions, let modifications):
///         print(deletions, insertions, modifications)
///     case .error(let error): print(error)
///     }
/// }
/// ```
public enum RealmCollectionChange<CollectionType> {
    /// The query has run; the collection can be read without blocking. Sent once, first.
    case initial(CollectionType)
    /// The collection changed.
    case update(CollectionType, deletions: [Int], insertions: [Int], modifications: [Int])
    /// An error occurred (Strata never sends it; kept for source compatibility).
    case error(Error)
}

/// A change to an observed `Map`, as Realm Swift's `RealmMapChange`: lists of keys.
public enum RealmMapChange<Collection: RealmKeyedCollection> {
    /// The map can be read; sent once, first.
    case initial(Collection)
    /// Keys removed, added, and whose values changed (a linked object that changed or was
    /// deleted is a modification of its key).
    case update(Collection, deletions: [Collection.Key], insertions: [Collection.Key], modifications: [Collection.Key])
    /// An error occurred (never sent; kept for source compatibility).
    case error(Error)
}

/// A change to an observed object, as Realm Swift's `ObjectChange`.
public enum ObjectChange<T> {
    /// An error occurred (never sent; kept for source compatibility).
    case error(_ error: Error)
    /// Properties of the object changed.
    case change(T, [PropertyChange])
    /// The object was deleted; no further notifications follow.
    case deleted
}

/// One changed property of an observed object, as Realm Swift's `PropertyChange`.
///
/// `oldValue` is nil when the change was committed by this Realm on this thread (as in Realm);
/// both values are nil for `List`, `MutableSet`, `Map` and `LinkingObjects` properties.
public struct PropertyChange {
    /// The property's name.
    public let name: String
    /// The value before the change, when known.
    public let oldValue: Any?
    /// The value after the change.
    public let newValue: Any?
}
