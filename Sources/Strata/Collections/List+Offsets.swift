import Foundation

/// The `IndexSet` forms of removal and moving that SwiftUI's `onDelete` and `onMove` hand over,
/// as Realm Swift's `List` has them.
extension List {
    /// Removes the elements at `offsets`.
    public func remove(atOffsets offsets: IndexSet) {
        for offset in offsets.reversed() { remove(at: offset) }
    }

    /// Moves the elements at `offsets` so that they stand, in their order, just before the
    /// element that was at `destination` (at the end when `destination` is `count`), as
    /// SwiftUI's `move(fromOffsets:toOffset:)` on an array.
    public func move(fromOffsets offsets: IndexSet, toOffset destination: Int) {
        if location == nil {
            for offset in offsets { ListIndex.require(offset, below: count) }
            ListIndex.require(destination, below: count + 1, name: "toOffset")
        }
        // Elements before the destination go, one after another, to the place just before it
        // (each one moved makes the next one's index one less); those after it go to the
        // destination and after, where the earlier moves left them.
        let before = offsets.filter { $0 < destination }
        for (moved, offset) in before.enumerated() { move(from: offset - moved, to: destination - 1) }
        let after = offsets.filter { $0 >= destination }
        for (moved, offset) in after.enumerated() { move(from: offset, to: destination + moved) }
    }
}
