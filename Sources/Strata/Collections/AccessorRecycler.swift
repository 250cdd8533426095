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

    /// Whether the accessor lent last can be rebound: nothing else references it. Otherwise the
    /// accessor (which the loop kept) holds its row from now on, if it borrowed it, and is no
    /// longer this recycler's.
    func takeBackLent() -> Bool {
        guard last != nil else { return false }
        if Self.isSoleReference(&last) { return true }
        last.unsafelyUnwrapped.holdBorrowedRow()
        last = nil
        return false
    }

    /// The accessor lent last (``takeBackLent()`` said it can be rebound), rebound to the object
    /// `key` and lent `row`, the object's row at `readKey`, if any.
    func rebindLent(to key: ObjectKey, row: UnsafePointer<Row>?, at readKey: UInt64) -> ObjectBase {
        // Through an unretained reference: the recycler holds the accessor meanwhile.
        Unmanaged.passUnretained(last.unsafelyUnwrapped)._withUnsafeGuaranteedRef {
            $0.rebind(to: key, borrowing: row, at: readKey)
        }
        return last.unsafelyUnwrapped
    }

    /// Records `accessor`, a new one, as the accessor lent last.
    func lend(_ accessor: ObjectBase) {
        last = accessor
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
