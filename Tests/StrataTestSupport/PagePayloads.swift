/// Deterministic page contents for page-file tests: the payload written to page `number` by
/// generation `generation`, so any page read back can be checked without a model.
///
/// The length varies with both (from 0 up to `capacity`) and the bytes differ per page and per
/// generation, so a page read from the wrong offset or an older checkpoint is noticed.
public func pagePayload(number: UInt64, generation: UInt64, capacity: Int) -> [UInt8] {
    var random = SeededRandom(seed: number &* 0x9E37_79B9 &+ generation &* 0x85EB_CA6B &+ 1)
    let length: Int
    switch random.next() % 8 {
    case 0: length = 0
    case 1: length = capacity
    default: length = Int(random.next() % UInt64(capacity + 1))
    }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(length)
    while bytes.count < length {
        withUnsafeBytes(of: random.next()) { bytes.append(contentsOf: $0.prefix(length - bytes.count)) }
    }
    return bytes
}
