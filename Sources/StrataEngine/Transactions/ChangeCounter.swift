/// A count of changes that a reader compares to tell whether what it cached is still current.
///
/// A Realm bumps its counter whenever what it reads may have changed (it moved to another
/// version, began, committed or cancelled a write), and gives it to its write transaction, which
/// bumps it for every instruction it applies. A managed object remembers the count its cached row
/// was read at.
///
/// The count lives at a fixed address (``value``), so that a property read compares it with one
/// load, holding neither the counter nor the Realm (both are kept alive by the object's handle).
package final class ChangeCounter {
    /// The count; stable for the counter's lifetime.
    package let value: UnsafeMutablePointer<UInt64>

    /// A counter at zero.
    package init() {
        value = .allocate(capacity: 1)
        value.initialize(to: 0)
    }

    deinit { value.deallocate() }

    /// Counts one change.
    @inline(__always)
    package func increment() { value.pointee &+= 1 }

    /// The current count.
    package var count: UInt64 { value.pointee }
}
