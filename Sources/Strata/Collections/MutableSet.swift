import StrataEngine

/// An unordered collection of unique values or objects, as Realm Swift's `MutableSet`: the
/// type of a `@Persisted var tags: MutableSet<String>` property.
///
/// Managed, its elements iterate in the store's value order (ascending for numbers and
/// strings); unmanaged, in insertion order. Mutations need a write transaction when managed.
public final class MutableSet<Element: RealmCollectionValue>: RandomAccessCollection, CustomStringConvertible {
    private var unmanaged: [Element]
    /// Where the managed collection lives; nil while unmanaged. Set once more when the unmanaged
    /// object holding this collection is added to a Realm (see ``ManagedInPlace``).
    private(set) var location: CollectionLocation?
    /// Set on the placeholder a traced object's property returns, so `projectTo` can go on
    /// tracing into the elements.
    var tracer: KeyPathTracer?

    /// Creates an empty, unmanaged set.
    public init() {
        unmanaged = []
        location = nil
    }

    init(location: CollectionLocation) {
        unmanaged = []
        self.location = location
    }

    private var storedElements: [StrataEngine.Value] {
        guard let location, case .set(let elements) = location.value else { return [] }
        return elements
    }

    /// The Realm managing the set, or nil while unmanaged.
    public var realm: Realm? { location?.realm }

    /// Whether the owning object was deleted or its Realm invalidated.
    public var isInvalidated: Bool { location.map { !$0.exists } ?? false }

    public var startIndex: Int { 0 }

    /// The number of elements.
    public var endIndex: Int { location == nil ? unmanaged.count : storedElements.count }

    /// The element at `position` in the set's order.
    public subscript(position: Int) -> Element {
        guard let location else {
            // Tracing a key path (`\.dogs[0].name`): an element that records what is read.
            if let tracer, let traced = Element._rlmTracePlaceholder(tracer) { return traced }
            return unmanaged[position]
        }
        return Element._rlmFromStored(storedElements[position], location.elementContext(.index(position)))
    }

    /// An iterator over the set's elements as they are when the iteration begins, as Realm
    /// Swift's `RLMIterator` (see `List.makeIterator()`).
    ///
    /// - Complexity: O(n) to start, then O(1) per element.
    public func makeIterator() -> RLMIterator<Element> {
        guard let location else { return RLMIterator(unmanaged: unmanaged) }
        return RLMIterator(stored: storedElements, of: location)
    }

    /// Whether the set holds `object`.
    ///
    /// - Complexity: O(log n) managed (binary search), O(n) unmanaged.
    public func contains(_ object: Element) -> Bool {
        guard let location else { return unmanaged.contains(object) }
        return storedElements.setPosition(of: object._rlmToStoredForLookup(location.realm)).found
    }

    /// Inserts `object` if it is not there yet.
    public func insert(_ object: Element) {
        guard let location else {
            if !unmanaged.contains(object) { unmanaged.append(object) }
            return
        }
        let context = _WriteContext(realm: location.realm, update: .error)
        location.mutate("modify", granular: { transaction, path in
            let stored = object._rlmToStored(context)
            guard location.realm.writeIsLive else { return }
            try transaction.setInsert(stored, in: path)
        }, whole: { _ in })
    }

    /// Inserts every element of `objects`.
    public func insert<S: Sequence>(objectsIn objects: S) where S.Element == Element {
        for object in objects { insert(object) }
    }

    /// Removes `object` if it is there.
    public func remove(_ object: Element) {
        guard let location else {
            unmanaged.removeAll { $0 == object }
            return
        }
        location.mutate("modify", granular: { transaction, path in
            try transaction.setErase(object._rlmToStoredForLookup(location.realm), in: path)
        }, whole: { _ in })
    }

    /// Removes every element.
    public func removeAll() {
        guard let location else {
            unmanaged.removeAll()
            return
        }
        location.mutate("modify", granular: { transaction, path in try transaction.setClear(in: path) }, whole: { _ in })
    }

    /// Inserts every element of `other`.
    public func formUnion(_ other: MutableSet<Element>) { insert(objectsIn: Array(other)) }

    /// Keeps only the elements also in `other`.
    public func formIntersection(_ other: MutableSet<Element>) {
        for element in Array(self) where !other.contains(element) { remove(element) }
    }

    /// Removes the elements that are in `other`.
    public func subtract(_ other: MutableSet<Element>) {
        for element in Array(other) { remove(element) }
    }

    /// Whether the two sets share an element.
    public func intersects(_ other: MutableSet<Element>) -> Bool { contains { other.contains($0) } }

    /// Whether every element is also in `other`.
    public func isSubset(of other: MutableSet<Element>) -> Bool { allSatisfy { other.contains($0) } }

    /// The elements as Realm prints a set (`MutableSet<Dog> <0x…> (\n\t[0] …\n)`, at most 100, nested five levels deep).
    public var description: String { description(depth: RealmDescription.maximumDepth) }

    func description(depth: Int) -> String {
        RealmDescription.collection("MutableSet", elementType: RealmDescription.typeName(Element.self), identity: self,
                                    elements: RealmDescription.indexed(self), count: count, depth: depth)
    }
}

extension _Persistable {
    /// The stored form of a value for comparing with stored elements, without adding objects
    /// (an unmanaged object matches nothing).
    func _rlmToStoredForLookup(_ realm: Realm) -> StrataEngine.Value {
        if let object = self as? ObjectBase {
            guard let handle = object.handle else { return .null }
            return .link(ObjectLink(table: handle.table.key, key: handle.key))
        }
        return _rlmToStored(_WriteContext(realm: realm, update: .error))
    }
}

extension MutableSet: _Persistable {
    public static var _rlmIsKeptCollection: Bool { true }

    public static var _rlmColumn: _ColumnDescription { Element._rlmColumn.inCollection(.set) }

    public static func _rlmDefaultValue() -> Self { Self() }

    /// While a key path is traced, an empty set that remembers the tracer, so that
    /// `projectTo` can trace on into the elements.
    public static func _rlmTracePlaceholder(_ tracer: KeyPathTracer) -> Self? {
        let placeholder = Self()
        placeholder.tracer = tracer
        return placeholder
    }

    public static func _rlmFromStored(_ value: StrataEngine.Value, _ context: _ReadContext) -> Self {
        Self(location: CollectionLocation(context))
    }

    public func _rlmToStored(_ context: _WriteContext) -> StrataEngine.Value {
        .set(map { $0._rlmToStored(context) })
    }

    /// A new unmanaged set from an array or any other sequence (another set, a `Results`, a
    /// `List`, `LinkingObjects`), its elements copied; nil when `value` is not a sequence of this
    /// set's elements.
    public static func _rlmFromAny(_ value: Any) -> Self? {
        if LooseSequence.isAbsent(value) { return Self() }  // nil or NSNull: empty, as in Realm
        guard let array = LooseSequence.elements(of: value) else { return nil }
        let set = Self()
        for element in array {
            guard let typed = Element._rlmFromAny(element) else { return nil }
            set.insert(typed)
        }
        return set
    }
}

extension MutableSet: Equatable, Hashable {
    /// Two accessors of one managed property are equal; an unmanaged set is equal only to itself.
    public static func == (lhs: MutableSet, rhs: MutableSet) -> Bool { CollectionIdentity.equal(lhs, lhs.location, rhs, rhs.location) }

    public func hash(into hasher: inout Hasher) { CollectionIdentity.hash(self, location, into: &hasher) }
}

extension MutableSet: ManagedInPlace {
    func becomeManaged(_ context: _ReadContext) {
        guard location == nil else { return }
        location = CollectionLocation(context)
        unmanaged = []
    }
}
