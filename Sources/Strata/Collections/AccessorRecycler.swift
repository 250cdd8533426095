import StrataEngine

/// The accessor an iteration handed out last, rebound to the next object when nothing else can
/// see it, instead of allocating, initializing, binding and later freeing a new one for every
/// element: `for person in people { total += person.age }` then costs one accessor in all.
///
/// An accessor is rebound only when this recycler holds the sole reference to it (the loop body
/// kept no strong, weak or unowned reference) and its class stores nothing but its `@Persisted`
/// properties (``ClassInfo/accessorsAreRecyclable``), so no state of the previous object can show
/// through. An element kept by the loop (appended to an array, captured by a closure, held
/// weakly) is left alone and the next element gets a new accessor, as every element does in
/// Realm Swift.
final class AccessorRecycler {
    @exclusivity(unchecked) private var last: ObjectBase?

    /// The accessor of the object `key` of `table` in `realm`, an object of class `type`.
    func accessor(_ type: ObjectBase.Type, table: TableInfo, key: ObjectKey, realm: Realm) -> ObjectBase {
        if Self.isSoleReference(&last) {
            let object = last.unsafelyUnwrapped
            object.rebind(to: key)
            if realm.isRecordingEvents { realm.recordObjectRead(table: table, key: key) }
            return object
        }
        let object = realm.accessor(type, table: table, key: key)
        last = object
        return object
    }

    /// Whether `reference` holds an object nothing else references. `isKnownUniquelyReferenced`
    /// counts strong references only; a weak or unowned reference would see the object change,
    /// so the object's reference-count word must also be a fresh object's: the Swift runtime keeps
    /// the unowned count in bits 1–31 (1 while no unowned reference exists) and moves the counts
    /// to a side table, setting the word's top bits, once a weak reference is made. Bit 0 is a
    /// flag of the object's class. A test checks this against weak, unowned and strong references
    /// (`AccessorRecyclingTests`).
    static func isSoleReference(_ reference: inout ObjectBase?) -> Bool {
        guard isKnownUniquelyReferenced(&reference) else { return false }
        // Read through the reference's own storage: copying the reference would retain the object.
        let word = withUnsafePointer(to: &reference) { slot in
            UnsafeRawPointer(slot).load(as: UnsafeRawPointer.self).load(fromByteOffset: referenceCountOffset,
                                                                           as: UInt64.self)
        }
        return word & ~1 == freshReferenceCountBits
    }

    /// Where a Swift object keeps its reference counts: after its class pointer.
    private static let referenceCountOffset = 8
    /// The reference-count word of an object with one strong reference, without bit 0: an
    /// unowned count of 1 (the strong references' own), no strong extra count, inline counts.
    private static let freshReferenceCountBits: UInt64 = 2
}
