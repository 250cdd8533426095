import Dispatch

/// A live view of one property of each object in a `List` or `MutableSet`, as Realm
/// Swift's `ProjectedCollection`: the value of a `@Projected` property declared with
/// `projectTo`.
///
/// ```swift
/// class PersonProjection: Projection<Person> {
///     @Projected(\Person.friends.projectTo.firstName) var friendsFirstNames: ProjectedCollection<String>
/// }
/// print(Array(projection.friendsFirstNames))  // ["Ada", "Grace"]
/// ```
///
/// It has the underlying collection's order and count (a `MutableSet`'s mapped values may
/// repeat) and reads the collection as it is now.
public struct ProjectedCollection<Element: RealmCollectionValue>: RandomAccessCollection, CustomStringConvertible {
    /// The position of an element.
    public typealias Index = Int

    private let elementCount: () -> Int
    private let element: (Int) -> Element
    private let owner: () -> Realm?
    private let invalidated: () -> Bool
    private let frozen: () -> Bool
    private let freezing: () -> ProjectedCollection
    private let thawing: () -> ProjectedCollection?
    private let store: (Int, Element) -> Void
    private let subscribe: ([String]?, DispatchQueue?, @escaping (RealmCollectionChange<Void>) -> Void)
        -> NotificationToken

    init<Source: ObjectBase & RealmCollectionValue>(_ source: AnyRealmCollection<Source>,
                                                    keyPath: KeyPath<Source, Element>) {
        elementCount = { source.count }
        element = { source[$0][keyPath: keyPath] }
        owner = { source.realm }
        invalidated = { source.isInvalidated }
        frozen = { source.isFrozen }
        freezing = { ProjectedCollection(source.freeze(), keyPath: keyPath) }
        thawing = { source.thaw().map { ProjectedCollection($0, keyPath: keyPath) } }
        store = { position, value in
            guard let writable = keyPath as? ReferenceWritableKeyPath<Source, Element> else {
                preconditionFailure("The projected property \(keyPath) cannot be set")
            }
            source[position][keyPath: writable] = value
        }
        subscribe = { keyPaths, queue, block in
            source.observe(keyPaths: keyPaths, on: queue) { change in
                switch change {
                case .initial: block(.initial(()))
                case .update(_, let deletions, let insertions, let modifications):
                    block(.update((), deletions: deletions, insertions: insertions, modifications: modifications))
                case .error(let error): block(.error(error))
                }
            }
        }
    }

    /// The position of the first element: 0.
    public var startIndex: Int { 0 }

    /// The number of elements: the underlying collection's count.
    ///
    /// - Complexity: O(log n) for a managed collection (one row lookup).
    public var endIndex: Int { elementCount() }

    /// The projected value of the object at `position`; setting it sets the property of that
    /// object (inside a write transaction for a managed collection), as in Realm Swift.
    ///
    /// - Complexity: O(log n) for a managed collection.
    public subscript(position: Int) -> Element {
        get { element(position) }
        nonmutating set { store(position, newValue) }
    }

    /// The Realm managing the underlying collection, or nil when it is unmanaged.
    public var realm: Realm? { owner() }

    /// Whether the underlying collection is frozen.
    public var isFrozen: Bool { frozen() }

    /// The projection of a frozen copy of the underlying collection, readable from any thread,
    /// as Realm Swift's `freeze()`. Traps for an unmanaged collection, as freezing it does.
    public func freeze() -> ProjectedCollection { freezing() }

    /// The projection of the live collection at this thread's Realm's current version (self when
    /// live), or nil when its owner was deleted.
    public func thaw() -> ProjectedCollection? { thawing() }

    /// Whether the object owning the underlying collection was deleted or its Realm invalidated.
    public var isInvalidated: Bool { invalidated() }

    /// The index of the first element equal to `value`, as Realm's `index(of:)`.
    ///
    /// - Complexity: O(n).
    public func index(of value: Element) -> Int? { firstIndex(of: value) }

    /// The element type and each element with its index, as Realm Swift prints projected
    /// collections.
    public var description: String {
        let lines = enumerated().map { "\t[\($0.offset)] \($0.element)\n" }
        return "ProjectedCollection<\(Element.self)> {\n" + lines.joined() + "}"
    }

    /// Registers a block called with the underlying collection's changes, as Realm Swift's
    /// `ProjectedCollection.observe(keyPaths:on:_:)`: first `.initial`, then an `.update` for
    /// each change to the collection's membership or to its objects.
    ///
    /// The indices are those of the underlying collection, which are also this collection's.
    /// Without `keyPaths`, a change to any property of an element counts as a modification;
    /// pass the mapped property's name (`["firstName"]`) to count only that one.
    ///
    /// Traps for an unmanaged collection, inside a write transaction and on a thread with no
    /// scheduler.
    ///
    /// - Parameters:
    ///   - keyPaths: Property paths of the underlying objects whose changes count.
    ///   - queue: Must be nil: delivery on another queue is not supported here yet.
    ///   - block: Called with each change.
    /// - Returns: A token; keep it for as long as you want notifications.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<ProjectedCollection>) -> Void) -> NotificationToken {
        let collection = self
        precondition(queue == nil, "observe(on: queue) is not supported for projections yet: observe the underlying "
                     + "Results or object on the queue instead")
        return subscribe(keyPaths, queue) { change in
            switch change {
            case .initial: block(.initial(collection))
            case .update(_, let deletions, let insertions, let modifications):
                block(.update(collection, deletions: deletions, insertions: insertions, modifications: modifications))
            case .error(let error): block(.error(error))
            }
        }
    }
}

/// Maps a `List` or `MutableSet` of objects to a ``ProjectedCollection`` of one of their
/// properties, as Realm Swift's `CollectionElementMapper`: the type of `projectTo`.
///
/// ```swift
/// @Projected(\Person.friends.projectTo.firstName) var friendsFirstNames: ProjectedCollection<String>
/// ```
@dynamicMemberLookup
public struct CollectionElementMapper<Element: ObjectBase & RealmCollectionValue> {
    let source: AnyRealmCollection<Element>
    /// Set while a projection's key path is traced: the element key path's names go on the
    /// collection property's.
    let tracer: KeyPathTracer?

    /// The collection of `member`'s value for each element.
    public subscript<V>(dynamicMember member: KeyPath<Element, V>) -> ProjectedCollection<V> {
        tracer?.record(names: KeyPathTracer.names(of: member))
        return ProjectedCollection(source, keyPath: member)
    }
}

extension List where Element: ObjectBase {
    /// Maps the list to one property of each object, for a ``Projected`` property:
    /// `\Person.friends.projectTo.firstName` is a ``ProjectedCollection`` of first names.
    public var projectTo: CollectionElementMapper<Element> {
        CollectionElementMapper(source: AnyRealmCollection(self), tracer: tracer)
    }
}

extension MutableSet where Element: ObjectBase {
    /// Maps the set to one property of each object, for a ``Projected`` property; unlike a set,
    /// the mapped values may repeat.
    public var projectTo: CollectionElementMapper<Element> {
        CollectionElementMapper(source: AnyRealmCollection(self), tracer: tracer)
    }
}
