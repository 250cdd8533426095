import Foundation

/// Damages tree-leaf pages of the closed store's page file at `path` that its last checkpoint
/// wrote (so the checkpoint reaches them: a checkpoint writes no page it does not use), by
/// flipping one bit of each (past the checksum, so the checksum fails), and returns their numbers.
///
/// Reads the file's raw bytes, as a disk would hand them over (no Strata code involved): the page
/// size from header slot 0, the generation as the higher of the two slots', each page's kind
/// (byte 4: 2 is a tree leaf) and generation (bytes 16 ..< 24). `count` pages are picked evenly
/// from those that qualify; fewer when fewer qualify.
public func damageLeafPagesOfLastCheckpoint(storeAt path: String, count: Int) throws -> [UInt64] {
    let url = URL(fileURLWithPath: path)
    var bytes = try Data(contentsOf: url)
    func integer<T: FixedWidthInteger>(at offset: Int, _: T.Type) -> T {
        bytes.withUnsafeBytes { T(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: T.self)) }
    }
    let pageSize = Int(integer(at: 44, UInt32.self))
    precondition(pageSize >= 4096 && bytes.count >= 2 * pageSize, "\(path) is not a page file with two slots")
    let generation = max(integer(at: 16, UInt64.self), integer(at: pageSize + 16, UInt64.self))
    let leaves = (2..<bytes.count / pageSize).filter { page in
        bytes[page * pageSize + 4] == 2 && integer(at: page * pageSize + 16, UInt64.self) == generation
    }
    guard !leaves.isEmpty, count > 0 else { return [] }
    let picked = (0..<min(count, leaves.count)).map { leaves[$0 * leaves.count / min(count, leaves.count)] }
    for page in picked { bytes[page * pageSize + 100] ^= 0x10 }
    try bytes.write(to: url)
    return picked.map(UInt64.init)
}

/// Flips one bit in the middle of header slot `slot` (page 0 or 1) of the page file at `path`, so
/// that its checksum fails.
public func damageHeaderSlot(_ slot: Int, ofStoreAt path: String) throws {
    let url = URL(fileURLWithPath: path)
    var bytes = try Data(contentsOf: url)
    let pageSize = bytes.withUnsafeBytes {
        Int(UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: 44, as: UInt32.self)))
    }
    bytes[slot * pageSize + pageSize / 2] ^= 0x01
    try bytes.write(to: url)
}
