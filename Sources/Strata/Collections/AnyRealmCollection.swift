/// Any Realm collection of `Element`, type-erased, as Realm Swift's `AnyRealmCollection`.
///
/// ```swift
/// let dogs: AnyRealmCollection<Dog> = condition ? AnyRealmCollection(person.dogs)
///                                               : AnyRealmCollection(realm.objects(Dog.self))
/// ```
public struct AnyRealmCollection<Element: RealmCollectionValue>: RealmCollection {
    private let count: () -> Int
    private let element: (Int) -> Element
    private let iterator: () -> RLMIterator<Element>
    private let owner: () -> Realm?
    private let invalidated: () -> Bool
    private let results: () -> Results<Element>
    private let handover: () -> _Handover

    /// Wraps `base`.
    public init<C: RealmCollection>(_ base: C) where C.Element == Element {
        count = { base.count }
        element = { base[$0] }
        iterator = { RLMIterator(wrapping: base.makeIterator()) }
        owner = { base.realm }
        invalidated = { base.isInvalidated }
        results = { base._asResults }
        handover = {
            let wrapped = base._handover()
            return _Handover { realm in
                guard let base = wrapped.value(in: realm, as: C.self) else { return nil }
                return AnyRealmCollection(base)
            }
        }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count() }
    /// An iterator over the wrapped collection's elements, which walks it as its own iterator
    /// does (a `Results` or `List` of objects a batch of rows at a time).
    public func makeIterator() -> RLMIterator<Element> { iterator() }
    /// The element at `position` of the wrapped collection.
    public subscript(position: Int) -> Element { element(position) }
    /// The wrapped collection's Realm.
    public var realm: Realm? { owner() }
    /// Whether the wrapped collection is invalidated.
    public var isInvalidated: Bool { invalidated() }
    public var _asResults: Results<Element> { results() }
    /// The elements as Realm prints them, named `AnyRealmCollection` (`AnyRealmCollection<Dog>
    /// <0x…> (\n\t[0] …\n)`, at most 100, nested five levels deep).
    public var description: String {
        RealmDescription.collection("AnyRealmCollection", elementType: RealmDescription.typeName(Element.self),
                                    identity: self as AnyObject, elements: RealmDescription.indexed(self),
                                    count: endIndex, depth: RealmDescription.maximumDepth)
    }
    public func _handover() -> _Handover { handover() }
}
