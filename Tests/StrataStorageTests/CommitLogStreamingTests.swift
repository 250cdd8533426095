import Testing
@testable import StrataStorage
import StrataSupport

/// ``CommitLog/append(version:payloadLength:writePayload:)``: a record written in pieces, the
/// header last, reads back as one appended whole would.
@Suite("CommitLog streamed appends")
struct CommitLogStreamingTests {
    /// A payload of `length` bytes that depend on `version`.
    static func payload(_ version: UInt64, length: Int) -> [UInt8] {
        (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(version) &* 7) }
    }

    /// Appends `payload` in pieces of `piece` bytes.
    static func appendStreamed(_ log: CommitLog, version: UInt64, _ payload: [UInt8], piece: Int) throws {
        try log.append(version: version, payloadLength: payload.count) { sink in
            var start = 0
            while start < payload.count {
                let end = min(start + piece, payload.count)
                try payload[start..<end].withUnsafeBytes(sink)
                start = end
            }
        }
    }

    @Test("streamed records, between records appended whole, come back on reopen in order with exact payloads and chain on")
    func streamedRecordsReadBack() throws {
        try withTemporaryDirectory { directory in
            let store = storePath(in: directory)
            var expected: [(version: UInt64, payload: [UInt8])] = []
            do {
                let (log, _) = try CommitLog.open(storePath: store)
                for version: UInt64 in 1...6 {
                    let payload = Self.payload(version, length: version % 2 == 0 ? 300_000 + Int(version) : 90)
                    if version % 2 == 0 {
                        try Self.appendStreamed(log, version: version, payload, piece: 65_536)
                    } else {
                        try log.append(sealedRecord(version: version, payload: payload))
                    }
                    expected.append((version, payload))
                }
                try log.sync()
                #expect(log.currentSegmentSize == (try fileSize(LogSegment.path(storePath: store, sequence: 1))))
            }
            let (_, recovery) = try CommitLog.open(storePath: store)
            #expect(recovery.truncatedBytes == 0)
            #expect(recovery.records.map(\.version) == expected.map(\.version))
            #expect(recovery.records.map(\.payload) == expected.map(\.payload))
        }
    }

    @Test("a streamed record whose payload fails part way is not appended: the bytes it wrote are no record, and the next append takes its place")
    func failedPayloadLeavesNothing() throws {
        struct Interrupted: Error {}
        try withTemporaryDirectory { directory in
            let store = storePath(in: directory)
            do {
                let (log, _) = try CommitLog.open(storePath: store)
                try log.append(sealedRecord(version: 1, payload: samplePayload(1)))
                let end = log.currentSegmentSize
                let payload = Self.payload(2, length: 200_000)
                #expect(throws: Interrupted.self) {
                    try log.append(version: 2, payloadLength: payload.count) { sink in
                        try payload[..<150_000].withUnsafeBytes(sink)
                        throw Interrupted()
                    }
                }
                #expect(log.currentSegmentSize == end)
                #expect(log.lastVersion == 1)
                try log.sync()
            }
            do {
                let (log, recovery) = try CommitLog.open(storePath: store)
                #expect(recovery.records.map(\.version) == [1], "the interrupted record's bytes are a torn tail")
                try Self.appendStreamed(log, version: 2, Self.payload(2, length: 120_000), piece: 50_000)
                try log.sync()
            }
            let (_, recovery) = try CommitLog.open(storePath: store)
            #expect(recovery.records.map(\.version) == [1, 2])
            #expect(recovery.records.last?.payload == Self.payload(2, length: 120_000))
        }
    }
}
