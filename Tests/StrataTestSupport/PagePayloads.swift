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
    // Byte by byte from each word, low byte first, into the array's own storage: copying slices
    // of each word's bytes instead looked a tuple type's metadata up on every word in an
    // unoptimized build, under a lock of the Swift runtime that the page cache's concurrency test's
    // four reading threads then queued on (most of its minute under ThreadSanitizer).
    // (An empty payload is the empty array: made with a capacity of 0, the array's initializer
    // writes its count into the standard library's shared empty storage, a race between threads.)
    guard length > 0 else { return [] }
    return [UInt8](unsafeUninitializedCapacity: length) { buffer, initialized in
        var index = 0
        while index < length {
            var word = random.next()
            for _ in 0..<8 where index < length {
                buffer[index] = UInt8(truncatingIfNeeded: word)
                word >>= 8
                index += 1
            }
        }
        initialized = length
    }
}
