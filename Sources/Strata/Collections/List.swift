import StrataEngine

/// An ordered collection of values or objects, as Realm Swift's `List`: the type of a
/// `@Persisted var items: List<T>` property.
///
/// Unmanaged, it is a plain array. Managed, it reads and writes its object's property in the
/// Realm: reads see the Realm's current version, and mutations need a write transaction
/// (outside one they trap with Realm's message). Duplicates are allowed; object elements must
/// not be optional.
public final class List<Element: RealmCollectionValue>: RandomAccessCollection, MutableCollection,
    RangeReplaceableCollection, CustomStringConvertible {
    private var unmanaged: [Element]
    /// Where the managed collection lives; nil while unmanaged. Set once more when the unmanaged
    /// object holding this collection is added to a Realm (see ``ManagedInPlace``).
    private(set) var location: CollectionLocation?
    /// Set on the placeholder a traced object's property returns, so `projectTo` can go on
    /// tracing into the elements.
    var tracer: KeyPathTracer?

    /// Creates an empty, unmanaged list.
    public required init() {
        unmanaged = []
        location = nil
    }

    init(location: CollectionLocation) {
        unmanaged = []
        self.location = location
    }

    // MARK: - Reading

    private var storedElements: [StrataEngine.Value] {
        guard let location, case .list(let elements) = location.value else { return [] }
        return elements
    }

    /// The Realm managing the list, or nil while unmanaged.
    public var realm: Realm? { location?.realm }

    /// Whether the object owning the list was deleted or its Realm invalidated.
    public var isInvalidated: Bool { location.map { !$0.exists } ?? false }

    public var startIndex: Int { 0 }

    /// The number of elements.
    ///
    /// - Complexity: O(log n) managed (one row lookup), O(1) unmanaged.
    public var endIndex: Int { location == nil ? unmanaged.count : storedElements.count }

    /// The element at `position`; setting replaces it (an object element is added first if
    /// unmanaged).
    ///
    /// - Complexity: O(log n) managed.
    public subscript(position: Int) -> Element {
        get {
            guard let location else {
                // Tracing a key path (`\.dogs[0].name`): an element that records what is read.
                if let tracer, let traced = Element._rlmTracePlaceholder(tracer) { return traced }
                ListIndex.require(position, below: unmanaged.count)
                return unmanaged[position]
            }
            let elements = storedElements
            ListIndex.require(position, below: elements.count)
            return Element._rlmFromStored(elements[position], location.elementContext(.index(position)))
        }
        set {
            guard let location else {
                ListIndex.require(position, below: unmanaged.count)
                unmanaged[position] = newValue
                return
            }
            location.mutate("modify", granular: { transaction, path in
                let stored = newValue._rlmToStored(_WriteContext(realm: location.realm, update: .error))
                guard location.realm.writeIsLive else { return }
                try transaction.listSet(stored, at: position, in: path)
            }, whole: { value in
                guard case .list(var elements) = value, elements.indices.contains(position) else { return }
                elements[position] = newValue._rlmToStored(_WriteContext(realm: location.realm, update: .error))
                value = .list(elements)
            })
        }
    }

    /// An iterator over the list's elements as they are when the iteration begins, as Realm
    /// Swift's `RLMIterator`: a loop that changes the list inside a write still visits the
    /// elements it started with. Objects are walked as a `Results` loop walks them (their rows
    /// read a batch at a time, an accessor the loop does not keep used again for the next one).
    ///
    /// - Complexity: O(n) to start (the list read once), then O(1) per element, plus the row
    ///   reads of objects a batch at a time.
    public func makeIterator() -> RLMIterator<Element> {
        guard let location else { return RLMIterator(unmanaged: unmanaged) }
        return RLMIterator(stored: storedElements, of: location)
    }

    /// The index of the first element equal to `object`, as Realm's `index(of:)`: for Realm
    /// objects, the same object (compared by table and key).
    ///
    /// - Complexity: O(n).
    public func index(of object: Element) -> Int? { firstIndex(ofObjectOrValue: object) }

    /// The elements as Realm prints a list (`List<Dog> <0x…> (\n\t[0] …\n)`, at most 100, nested five levels deep).
    public var description: String { description(depth: RealmDescription.maximumDepth) }

    func description(depth: Int) -> String {
        RealmDescription.collection("List", elementType: RealmDescription.typeName(Element.self), identity: self,
                                    elements: RealmDescription.indexed(self), count: count, depth: depth)
    }

    // MARK: - Mutating

    /// Inserts `newElement` at `index`.
    ///
    /// An index out of range traps on an unmanaged list, with Realm's message. On a managed list
    /// it fails the write instead (as every mutation the write cannot apply does): nothing more
    /// of the transaction is applied and `write {}` throws `invalidInput`.
    public func insert(_ newElement: Element, at index: Int) {
        guard let location else {
            ListIndex.require(index, below: unmanaged.count + 1)
            unmanaged.insert(newElement, at: index)
            return
        }
        location.mutate("modify", granular: { transaction, path in
            let stored = newElement._rlmToStored(_WriteContext(realm: location.realm, update: .error))
            guard location.realm.writeIsLive else { return }
            try transaction.listInsert(stored, at: index, in: path)
        }, whole: { value in
            guard case .list(var elements) = value else { return }
            elements.insert(newElement._rlmToStored(_WriteContext(realm: location.realm, update: .error)), at: index)
            value = .list(elements)
        })
    }

    /// Appends `newElement`.
    public func append(_ newElement: Element) { insert(newElement, at: endIndex) }

    /// Appends every element of `objects`, as Realm's `append(objectsIn:)`.
    public func append<S: Sequence>(objectsIn objects: S) where S.Element == Element {
        for element in objects { append(element) }
    }

    /// Removes and returns the element at `index`.
    @discardableResult
    public func remove(at index: Int) -> Element {
        let removed = self[index]
        guard let location else { return unmanaged.remove(at: index) }  // `self[index]` checked it
        location.mutate("modify", granular: { transaction, path in
            try transaction.listErase(at: index, in: path)
        }, whole: { value in
            guard case .list(var elements) = value, elements.indices.contains(index) else { return }
            elements.remove(at: index)
            value = .list(elements)
        })
        return removed
    }

    /// Removes every element.
    public func removeAll() {
        guard let location else {
            unmanaged.removeAll()
            return
        }
        location.mutate("modify", granular: { transaction, path in
            try transaction.listClear(in: path)
        }, whole: { value in value = .list([]) })
    }

    /// Removes every element, keeping capacity when unmanaged.
    public func removeAll(keepingCapacity keepCapacity: Bool) { removeAll() }

    /// Moves the element at `from` so that it ends up at `to`.
    public func move(from: Int, to: Int) {
        guard let location else {
            ListIndex.require(from, below: unmanaged.count, name: "from")
            ListIndex.require(to, below: unmanaged.count, name: "to")
            unmanaged.insert(unmanaged.remove(at: from), at: to)
            return
        }
        location.mutate("modify", granular: { transaction, path in
            try transaction.listMove(from: from, to: to, in: path)
        }, whole: { value in
            guard case .list(var elements) = value else { return }
            elements.insert(elements.remove(at: from), at: to)
            value = .list(elements)
        })
    }

    /// Exchanges the elements at two indices.
    public func swapAt(_ index1: Int, _ index2: Int) {
        if location == nil {
            ListIndex.require(index1, below: unmanaged.count, name: "index1")
            ListIndex.require(index2, below: unmanaged.count, name: "index2")
        }
        guard index1 != index2 else { return }
        let (low, high) = (Swift.min(index1, index2), Swift.max(index1, index2))
        move(from: low, to: high)
        move(from: high - 1, to: low)
    }

    /// Replaces the element at `index`, as Realm's `replace(index:object:)`.
    public func replace(index: Int, object: Element) { self[index] = object }

    /// Replaces a range of elements.
    public func replaceSubrange<C: Collection>(_ subrange: Range<Int>, with newElements: C)
    where C.Element == Element {
        guard location != nil else {
            unmanaged.replaceSubrange(subrange, with: newElements)
            return
        }
        // Read first: the new elements may be a slice of this list.
        let elements = Array(newElements)
        for index in subrange.reversed() { remove(at: index) }
        for (offset, element) in elements.enumerated() { insert(element, at: subrange.lowerBound + offset) }
    }

    /// The elements in `bounds`; setting replaces them with elements of any number, as Realm's
    /// `List` does (`list[1..<4] = other[0..<2]`), where `MutableCollection` alone would need as
    /// many as it replaces.
    public subscript(bounds: Range<Int>) -> Slice<List> {
        get { Slice(base: self, bounds: bounds) }
        set { replaceSubrange(bounds, with: Array(newValue)) }
    }
}

extension List: _Persistable {
    public static var _rlmIsKeptCollection: Bool { true }

    public static var _rlmColumn: _ColumnDescription { Element._rlmColumn.inCollection(.list) }

    public static func _rlmDefaultValue() -> Self { Self() }

    /// While a key path is traced, an empty list that remembers the tracer, so that
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
        .list(map { $0._rlmToStored(context) })
    }

    /// A new unmanaged list from an array or any other sequence (another list, a `Results`, a
    /// `MutableSet`, `LinkingObjects`), its elements copied; embedded objects are copied too, so
    /// the copy owns its own. Nil when `value` is not a sequence of this list's elements.
    public static func _rlmFromAny(_ value: Any) -> Self? {
        if LooseSequence.isAbsent(value) { return Self() }  // nil or NSNull: empty, as in Realm
        guard let array = LooseSequence.elements(of: value) else { return nil }
        let list = Self()
        for element in array {
            guard let typed = Element._rlmFromAny(element) else { return nil }
            list.append(typed)
        }
        return list
    }
}

extension List: Equatable, Hashable {
    /// Two accessors of one managed property are equal; an unmanaged list is equal only to itself.
    public static func == (lhs: List, rhs: List) -> Bool { CollectionIdentity.equal(lhs, lhs.location, rhs, rhs.location) }

    public func hash(into hasher: inout Hasher) { CollectionIdentity.hash(self, location, into: &hasher) }
}

extension List: ManagedInPlace {
    func becomeManaged(_ context: _ReadContext) {
        guard location == nil else { return }
        location = CollectionLocation(context)
        unmanaged = []
    }
}

/// An unmanaged list of embedded objects, as the update path of `add` reads it to update the
/// managed list's objects in place.
protocol UnmanagedEmbeddedList {
    /// The elements, when the list is unmanaged and holds embedded objects; else nil.
    var unmanagedEmbeddedObjects: [EmbeddedObject]? { get }
}

extension List: UnmanagedEmbeddedList {
    var unmanagedEmbeddedObjects: [EmbeddedObject]? {
        guard location == nil, Element.self is EmbeddedObject.Type else { return nil }
        return unmanaged.map { $0 as! EmbeddedObject }
    }
}
