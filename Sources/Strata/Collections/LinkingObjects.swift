import StrataEngine

/// Implementation detail: lets schema discovery read a `LinkingObjects` declaration.
protocol _LinkingObjectsProtocol {
    var originPropertyName: String { get }
}

/// The objects whose `property` links to an object, as Realm Swift's `LinkingObjects`: a
/// computed, read-only collection declared with `@Persisted(originProperty:)`.
///
/// ```swift
/// class Dog: Object {
///     @Persisted(originProperty: "dogs") var owners: LinkingObjects<Person>
/// }
/// ```
///
/// Reading it looks the object's backlinks up, so it costs O(k log n) for k linking objects,
/// not a scan. Elements come in ascending object-key order (creation order).
public struct LinkingObjects<Element: ObjectBase>: RandomAccessCollection, CustomStringConvertible {
    /// The property of `Element` that links to the owner.
    public let propertyName: String
    let location: CollectionLocation?
    /// The keys last found, shared by copies of this value (one owner, one property); nil
    /// while unmanaged.
    private let found: FoundKeys?
    /// Set on the placeholder a traced object's property returns, so that a key path can go on
    /// into an element (`\Dog.owners[0].name`).
    private var tracer: KeyPathTracer?

    /// Declares the objects of `type` whose `propertyName` links here.
    public init(fromType type: Element.Type, property propertyName: String) {
        self.propertyName = propertyName
        location = nil
        found = nil
    }

    init(propertyName: String, location: CollectionLocation) {
        self.propertyName = propertyName
        self.location = location
        found = FoundKeys()
    }

    /// The Realm managing the owner, or nil while unmanaged (then the collection is empty).
    public var realm: Realm? { location?.realm }

    /// Whether the owner was deleted or its Realm invalidated.
    public var isInvalidated: Bool {
        guard let location else { return false }
        return location.isStale || location.realm.readSnapshot.table(location.table)?.contains(location.object) != true
    }

    /// The linking objects' keys, ascending, each once: found once per version and write
    /// position of a live Realm, so that `count` and each subscript do not find and sort them
    /// again (a frozen one, which several threads may read at once, finds them each time).
    private var links: [ObjectKey] {
        guard let location, let found else { return [] }
        let state = location.realm.state
        guard state.isOnOwningThread else { preconditionFailure("Realm accessed from incorrect thread.") }
        if state.isFrozen { return keys(originTable: originTable) }
        let readKey = state.readKey
        if found.readKey != readKey {
            found.keys = keys(originTable: originTable)
            found.readKey = readKey
        }
        return found.keys
    }

    /// The linking objects' keys in `origin`, ascending, each once.
    func keys(originTable origin: TableInfo?) -> [ObjectKey] {
        guard let location, let origin, let property = origin.classInfo.propertyIndex[propertyName],
              let target = location.realm.readSnapshot.table(location.table) else { return [] }
        let originColumn = origin.columns[property]
        var seen = Set<ObjectKey>()
        return target.backlinks(to: location.object)
            .filter { $0.table == origin.key && $0.column == originColumn && seen.insert($0.object).inserted }
            .map(\.object).sorted()
    }

    private var originTable: TableInfo? {
        guard let location, let info = try? ClassInfo.of(Element.self) else { return nil }
        return location.realm.tableInfo(for: info)
    }

    public var startIndex: Int { 0 }

    /// The number of linking objects.
    ///
    /// - Complexity: O(k log k) for k linking objects at the first call after a change, then
    ///   O(1).
    public var endIndex: Int { links.count }

    /// The linking object at `position`.
    public subscript(position: Int) -> Element {
        if location == nil, let tracer { return tracer.tracedObject(Element.self) }
        guard let location, let origin = originTable else { preconditionFailure("Index out of bounds") }
        return location.realm.accessor(Element.self, table: origin, key: links[position])
    }

    /// The objects as Realm prints them (`LinkingObjects<Dog> <0x…> (\n\t[0] …\n)`, at most 100, nested five levels deep).
    public var description: String { description(depth: RealmDescription.maximumDepth) }

    func description(depth: Int) -> String {
        RealmDescription.collection("LinkingObjects", elementType: Element.className(), identity: self as AnyObject,
                                    elements: RealmDescription.indexed(self), count: count, depth: depth)
    }

    /// An iterator over the linking objects as they are when the iteration begins: their keys are
    /// found once (a position lookup finds them again each time), and the objects are walked as
    /// a `Results` loop walks them.
    ///
    /// - Complexity: O(k log k) to start for k linking objects, then O(1) per object.
    public func makeIterator() -> Iterator {
        guard let location, originTable != nil else { return Iterator(count: 0, objects: nil) }
        let keys = links
        return Iterator(count: keys.count, objects: ObjectReader(rows: .objects(keys), objectType: Element.self,
                                                                realm: location.realm))
    }

    /// Iterates the linking objects a ``LinkingObjects`` held when the iteration began.
    public struct Iterator: IteratorProtocol {
        // Inlinable stepping, as `RLMIterator`'s.
        @usableFromInline let count: Int
        let objects: ObjectReader?
        /// `objects`, unretained (the iterator holds it), as in `RLMIterator`.
        @usableFromInline let reader: Unmanaged<ObjectReader>?
        @usableFromInline var position = 0

        init(count: Int, objects: ObjectReader?) {
            self.count = objects == nil ? 0 : count
            self.objects = objects
            reader = objects.map { Unmanaged.passUnretained($0) }
        }

        /// The next linking object, or nil after the last one.
        @inlinable
        public mutating func next() -> Element? {
            guard position < count, let reader else { return nil }
            defer { position &+= 1 }
            // The reader makes accessors of `Element`'s own table, so of class `Element`.
            return unsafeDowncast(reader._withUnsafeGuaranteedRef { $0.object(at: position) }, to: Element.self)
        }
    }
}

/// The keys a ``LinkingObjects`` found and the Realm's ``RealmState/readKey`` then.
private final class FoundKeys {
    var readKey = RealmState.noReadKey
    var keys: [ObjectKey] = []
}

extension LinkingObjects: _LinkingObjectsProtocol {
    var originPropertyName: String { propertyName }
}

extension LinkingObjects: _Persistable {
    public static var _rlmColumn: _ColumnDescription {
        _ColumnDescription(.link, collection: .list, objectType: Element.self, isLinkingObjects: true)
    }

    public static func _rlmDefaultValue() -> LinkingObjects { LinkingObjects(fromType: Element.self, property: "") }

    /// While a key path is traced, an empty collection whose subscript returns a traced object.
    public static func _rlmTracePlaceholder(_ tracer: KeyPathTracer) -> LinkingObjects? {
        var placeholder = LinkingObjects(fromType: Element.self, property: "")
        placeholder.tracer = tracer
        return placeholder
    }

    /// Builds the managed collection for the declared origin property.
    public static func _rlmFromStored(_ value: StrataEngine.Value, _ context: _ReadContext) -> LinkingObjects {
        LinkingObjects(propertyName: context.originProperty ?? "", location: CollectionLocation(context))
    }

    public func _rlmToStored(_ context: _WriteContext) -> StrataEngine.Value { .null }
}

extension Persisted {
    /// Declares a `LinkingObjects` property: the objects whose `originProperty` links here.
    public init<Origin: ObjectBase>(originProperty: String) where Value == LinkingObjects<Origin> {
        self.init(state: .unmanaged(LinkingObjects(fromType: Origin.self, property: originProperty)),
                  indexed: false, primaryKey: false)
    }
}
