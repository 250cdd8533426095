@testable import StrataStorage
import StrataSupport
import Testing

@Suite("Page frame")
struct PageFrameTests {
    static let sizes = [4096, 16384, 65536]

    @Test("a page decodes to the kind, generation and payload it was encoded with, at every page size",
          arguments: sizes)
    func roundTrip(pageSize: Int) throws {
        let capacity = PageFrame.payloadCapacity(pageSize: pageSize, reserved: 0)
        for number: UInt64 in [2, 3, 1000, UInt64(UInt32.max) + 5] {
            for payload in [[], [7], pagePayload(number: number, generation: 9, capacity: capacity),
                            [UInt8](repeating: 0xAB, count: capacity)] {
                let image = PageFrame.encode(kind: .treeLeaf, number: number, generation: 9, payload: payload,
                                             pageSize: pageSize)
                #expect(image.count == pageSize)
                let page = try PageFrame.decode(image, number: number, pageSize: pageSize, path: "/p")
                #expect(page == PageFrame.Decoded(kind: .treeLeaf, generation: 9, payload: payload))
            }
        }
    }

    @Test("a single flipped bit anywhere in a page (frame, payload, padding) is a corruptFile error naming the file and page")
    func bitFlips() throws {
        let seed = SeededRandom.seedFromEnvironment()
        print("page frame bit flips: STRATA_SEED=\(seed)")
        var random = SeededRandom(seed: seed)
        let pageSize = 4096
        let image = PageFrame.encode(kind: .treeBranch, number: 7, generation: 3, payload: Array(repeating: 1, count: 100),
                                     pageSize: pageSize)
        let positions = Array(0..<PageFrame.headerSize + 8) + (0..<64).map { _ in Int(random.next() % UInt64(pageSize)) }
        for position in positions {
            var damaged = image
            damaged[position] ^= UInt8(1) << (random.next() % 8)
            let error = try expectCorrupt { _ = try PageFrame.decode(damaged, number: 7, pageSize: pageSize, path: "/dir/store.pages") }
            #expect(error.message.contains("page 7 of /dir/store.pages"), "byte \(position): \(error.message)")
            #expect(error.offset == UInt64(7 * 4096))
        }
    }

    @Test("a page read at another page's number (a misdirected or lost write) is a corruptFile error")
    func wrongNumber() throws {
        let image = PageFrame.encode(kind: .treeLeaf, number: 5, generation: 1, payload: [1, 2], pageSize: 4096)
        let error = try expectCorrupt { _ = try PageFrame.decode(image, number: 6, pageSize: 4096, path: "/f") }
        #expect(error.message.contains("page 6 of /f") && error.message.contains("holds page 5"))
    }

    @Test("a checksummed page with an impossible length or kind 0, or cut short, is a corruptFile error")
    func impossibleFields() throws {
        var tooLong = PageFrame.encode(kind: .treeLeaf, number: 2, generation: 1, payload: [], pageSize: 4096)
        tooLong.replaceSubrange(24..<28, with: [0xF0, 0x0F, 0, 0])
        let lengthError = try expectCorrupt {
            _ = try PageFrame.decode(resealed(tooLong), number: 2, pageSize: 4096, path: "/f")
        }
        #expect(lengthError.message.contains("payload length"))
        let zeroKind = resealed(PageFrame.encode(kind: PageKind(rawValue: 0), number: 2, generation: 1, payload: [],
                                                 pageSize: 4096))
        #expect(try expectCorrupt { _ = try PageFrame.decode(zeroKind, number: 2, pageSize: 4096, path: "/f") }
            .message.contains("kind 0"))
        let whole = PageFrame.encode(kind: .treeLeaf, number: 2, generation: 1, payload: [], pageSize: 4096)
        #expect(try expectCorrupt { _ = try PageFrame.decode(Array(whole.prefix(4000)), number: 2, pageSize: 4096, path: "/f") }
            .message.contains("truncated"))
        #expect(try expectCorrupt { _ = try PageFrame.decode([UInt8](repeating: 0, count: 4096), number: 2, pageSize: 4096,
                                                         path: "/f") }.message.contains("checksum"))
    }

    @Test("page sizes are powers of two from 4 KiB to 64 KiB")
    func pageSizes() {
        #expect([4096, 8192, 16384, 32768, 65536].allSatisfy(PageFrame.isValidPageSize))
        #expect(![0, 2048, 4095, 5000, 131_072, -4096].contains(where: PageFrame.isValidPageSize))
    }
}
