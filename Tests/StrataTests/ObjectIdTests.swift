import Foundation
import Testing

@testable import Strata

@Suite("ObjectId")
struct ObjectIdTests {
    /// The 3-byte counter at the end of an id.
    private static func counter(_ id: ObjectId) -> UInt32 {
        let bytes = id.bytes
        return UInt32(bytes[9]) << 16 | UInt32(bytes[10]) << 8 | UInt32(bytes[11])
    }

    @Test("generate() makes 10,000 distinct ids")
    func generatedIdsAreUnique() {
        let ids = (0..<10_000).map { _ in ObjectId.generate() }
        #expect(Set(ids).count == 10_000)
        #expect(Set(ids.map(\.stringValue)).count == 10_000)
    }

    @Test("Ids generated concurrently are distinct")
    func concurrentIdsAreUnique() async {
        let ids = await withTaskGroup(of: [ObjectId].self) { group in
            for _ in 0..<4 { group.addTask { (0..<2_500).map { _ in ObjectId.generate() } } }
            var all: [ObjectId] = []
            for await batch in group { all += batch }
            return all
        }
        #expect(ids.count == 10_000)
        #expect(Set(ids).count == 10_000)
    }

    @Test("The counter advances with every id and the process bytes stay fixed")
    func counterIsMonotonic() {
        // Other tests may generate ids in parallel, so the step is at least 1, not exactly 1.
        var previous = ObjectId.generate()
        for _ in 0..<1_000 {
            let next = ObjectId.generate()
            let step = (Self.counter(next) &- Self.counter(previous)) & 0xFF_FFFF
            #expect(step >= 1 && step < 1_000_000)
            #expect(next.bytes[4..<9] == previous.bytes[4..<9])
            #expect(next.timestamp >= previous.timestamp)
            previous = next
        }
    }

    @Test(
        "Hex strings round trip, in either letter case",
        arguments: [
            "000000000000000000000000", "ffffffffffffffffffffffff", "5f3d2c1b0a09080706050403",
            "5F3D2C1B0A09080706050403", "0123456789abcdefABCDEF01",
        ])
    func hexRoundTrip(text: String) throws {
        let id = try ObjectId(string: text)
        #expect(id.stringValue == text.lowercased())
        #expect(id.description == text.lowercased())
        #expect(try ObjectId(string: id.stringValue) == id)
    }

    @Test("Generated ids round trip through their string and bytes")
    func generatedRoundTrip() throws {
        for _ in 0..<100 {
            let id = ObjectId.generate()
            #expect(id.stringValue.count == 24)
            #expect(try ObjectId(string: id.stringValue) == id)
            #expect(ObjectId(bytes: id.bytes) == id)
        }
    }

    @Test(
        "Strings that are not 24 hex digits throw",
        arguments: [
            "", "abc", "5f3d2c1b0a0908070605040", "5f3d2c1b0a090807060504031", "gggggggggggggggggggggggg",
            "5f3d2c1b0a09080706050 03", "0x3d2c1b0a0908070605040302", "éééééééééééé", "5f3d2c1b-0a09-0807-0605-04",
            " 5f3d2c1b0a09080706050403",
        ])
    func invalidStringsThrow(text: String) {
        let error = #expect(throws: ValueParseError.self) { try ObjectId(string: text) }
        #expect(error?.input == text)
        #expect(error?.message.contains("ObjectId") == true)
    }

    @Test("The timestamp of a new id is the current second")
    func timestampIsNow() {
        let before = Date().timeIntervalSince1970.rounded(.down)
        let id = ObjectId.generate()
        let after = Date().timeIntervalSince1970
        let seconds = id.timestamp.timeIntervalSince1970
        #expect(seconds >= before && seconds <= after)
        #expect(abs(id.timestamp.timeIntervalSinceNow) < 2)
    }

    @Test("Ids order by their bytes")
    func orderingIsByBytes() throws {
        let low = try ObjectId(string: "000000010000000000000000")
        let middle = try ObjectId(string: "0000000100000000000000ff")
        let high = try ObjectId(string: "ff0000000000000000000000")
        #expect(low < middle && middle < high && low < high)
        #expect(!(high < low) && high > middle && low <= low && high >= high)
        var generator = SystemRandomNumberGenerator()
        let random = (0..<200).map { _ in
            ObjectId(bytes: (0..<12).map { _ in UInt8.random(in: 0...2, using: &generator) })
        }
        let byBytes = random.sorted { $0.bytes.lexicographicallyPrecedes($1.bytes) }
        #expect(random.sorted().map(\.bytes) == byBytes.map(\.bytes))
        let earlier = ObjectId(timestamp: Date(timeIntervalSince1970: 1_000), machineId: 0xFFFFFF, processId: 0xFFFF)
        let later = ObjectId(timestamp: Date(timeIntervalSince1970: 1_001), machineId: 0, processId: 0)
        #expect(earlier < later)
    }

    @Test("bytes and init(bytes:) are inverse and big-endian")
    func bytesLayout() {
        let bytes: [UInt8] = [0x5F, 0x3D, 0x2C, 0x1B, 0x0A, 0x09, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03]
        let id = ObjectId(bytes: bytes)
        #expect(id.bytes == bytes)
        #expect(id.stringValue == "5f3d2c1b0a09080706050403")
        #expect(id.timestamp == Date(timeIntervalSince1970: 0x5F3D_2C1B))
    }

    @Test("init(timestamp:machineId:processId:) lays the fields out as Realm Core does")
    func explicitFields() {
        let id = ObjectId(
            timestamp: Date(timeIntervalSince1970: 1_600_000_000.75), machineId: 0x0A0B0C, processId: 0x0D0E)
        let bytes = id.bytes
        #expect(Array(bytes[0..<4]) == [0x5F, 0x5E, 0x10, 0x00])  // 1_600_000_000 big-endian
        #expect(Array(bytes[4..<7]) == [0x0C, 0x0B, 0x0A])  // machine id, low byte first
        #expect(Array(bytes[7..<9]) == [0x0E, 0x0D])  // process id, low byte first
        #expect(id.timestamp == Date(timeIntervalSince1970: 1_600_000_000))
    }

    @Test("Codable encodes the hex string and decodes it back")
    func codableRoundTrip() throws {
        let ids = [ObjectId.generate(), ObjectId("5f3d2c1b0a09080706050403")]
        let data = try JSONEncoder().encode(ids)
        #expect(String(decoding: data, as: UTF8.self).contains("\"5f3d2c1b0a09080706050403\""))
        #expect(try JSONDecoder().decode([ObjectId].self, from: data) == ids)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([ObjectId].self, from: Data("[\"xyz\"]".utf8)) }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([ObjectId].self, from: Data("[42]".utf8)) }
    }

    @Test("Literals, init() and hashing")
    func literalsAndHashing() throws {
        let literal: ObjectId = "5f3d2c1b0a09080706050403"
        #expect(literal == ObjectId("5f3d2c1b0a09080706050403"))
        #expect(literal.hashValue == (try ObjectId(string: "5F3D2C1B0A09080706050403")).hashValue)
        #expect(ObjectId() == ObjectId())
        #expect(ObjectId().stringValue == "000000000000000000000000")
        #expect(Set([literal, literal, ObjectId.generate()]).count == 2)
    }

    @Test("init(bytes:) with other than 12 bytes aborts")
    func wrongByteCountTraps() async {
        await #expect(processExitsWith: .failure) {
            _ = ObjectId(bytes: [1, 2, 3])
        }
    }
}
