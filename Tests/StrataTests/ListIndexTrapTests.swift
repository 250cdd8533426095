import Foundation
import Strata
import Testing

/// An unmanaged `List`'s index out of range traps with Realm's messages (a Swift array's would
/// say only "Index out of range").
@Suite("List index checks")
struct ListIndexTrapTests {
    private static func text(_ result: ExitTest.Result?) -> String {
        String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    }

    @Test("reads, inserts, moves and swaps out of range trap with Realm's messages")
    func unmanagedIndexMessages() async {
        let negativeRead = Self.text(await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let list = List<Int>()
            list.append(objectsIn: [1, 2, 3])
            _ = list[-1]
        })
        #expect(negativeRead.contains("Cannot pass a negative value for 'index'."), "\(negativeRead)")
        let insertPastEnd = Self.text(await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let list = List<Int>()
            list.append(objectsIn: [1, 2, 3])
            list.insert(4, at: 4)
        })
        #expect(insertPastEnd.contains("Index 4 is out of bounds (must be less than 4)."), "\(insertPastEnd)")
        let swap = Self.text(await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let list = List<Int>()
            list.append(objectsIn: [1, 2, 3])
            list.swapAt(0, -1)
        })
        #expect(swap.contains("Cannot pass a negative value for 'index2'."), "\(swap)")
        let move = Self.text(await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let list = List<String>()
            list.append("a")
            list.move(from: 0, to: 3)
        })
        #expect(move.contains("Index 3 is out of bounds (must be less than 1)."), "\(move)")
    }

    @Test("objects(at:) with an index out of bounds traps with Realm's message")
    func objectsAtIndexes() async {
        let message = Self.text(await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let list = List<Int>()
            list.append(objectsIn: [1, 2, 3])
            _ = list.objects(at: IndexSet([0, 3]))
        })
        #expect(message.contains("Indexes for collection are out of bounds."), "\(message)")
    }
}
