import StrataSupport

/// The frame every page of a ``PageFile`` carries, and its encoding: the checksum, kind, number,
/// generation and payload length in front of the payload.
///
/// A page is `pageSize` bytes at offset `number × pageSize`; its image (the bytes before the
/// ``PageTransform``, which the identity transform writes as they are) is:
///
/// ```
/// offset  0  u32 CRC-32C of bytes 4 ..< pageSize (everything after it, padding included)
///         4  u8  kind (see PageKind; 0 is never valid)
///         5  u8  reserved (0)
///         6  u16 reserved (0)
///         8  u64 page number: the page's own number, so a write that landed at another
///                page's offset (misdirected) or a page that never reached disk (lost) is caught
///        16  u64 generation: the checkpoint that wrote the page
///        24  u32 payload length, at most pageSize − 32 − the transform's reserved bytes
///        28  u32 reserved (0)
///        32  payload
///            zeros up to pageSize − reserved
///            the transform's reserved bytes (zeros before encoding; see PageTransform)
/// ```
/// All integers are little-endian. Decoding checks the checksum, then the number, kind and
/// length: a page that fails any check is ``StrataError/Code/corruptFile`` naming the file and
/// the page, with ``StrataError/offset`` set to the page's offset. Never a trap, never a
/// payload read from the wrong page.
package enum PageFrame {
    /// The size of the frame in front of the payload.
    package static let headerSize = 32
    /// The smallest page size a file may use (4 KiB).
    package static let minimumPageSize = 4096
    /// The largest page size a file may use (64 KiB).
    package static let maximumPageSize = 65536
    /// The page size of a new file unless the caller picks another (16 KiB).
    package static let defaultPageSize = 16384

    /// Whether `size` is a page size a file may use: a power of two from 4 KiB to 64 KiB.
    package static func isValidPageSize(_ size: Int) -> Bool {
        size >= minimumPageSize && size <= maximumPageSize && size & (size - 1) == 0
    }

    /// The most payload a page of `pageSize` bytes holds when the transform keeps `reserved`.
    package static func payloadCapacity(pageSize: Int, reserved: Int) -> Int {
        pageSize - headerSize - reserved
    }

    /// The image of a page: the frame, `payload`, and zeros to `pageSize`.
    ///
    /// The caller has checked that the payload fits (``payloadCapacity(pageSize:reserved:)``).
    package static func encode(
        kind: PageKind, number: UInt64, generation: UInt64, payload: some Collection<UInt8>, pageSize: Int
    ) -> [UInt8] {
        precondition(payload.count <= pageSize - headerSize, "a page payload of \(payload.count) bytes does not fit")
        // Built in place with raw stores and one copy of the payload: this runs for every page a
        // checkpoint writes, also in debug builds.
        var bytes = [UInt8](repeating: 0, count: pageSize)
        bytes.withUnsafeMutableBytes { raw in
            raw[4] = kind.rawValue
            raw.storeBytes(of: number.littleEndian, toByteOffset: 8, as: UInt64.self)
            raw.storeBytes(of: generation.littleEndian, toByteOffset: 16, as: UInt64.self)
            raw.storeBytes(of: UInt32(payload.count).littleEndian, toByteOffset: 24, as: UInt32.self)
            let body = UnsafeMutableRawBufferPointer(rebasing: raw[headerSize...])
            if payload.withContiguousStorageIfAvailable({ body.copyBytes(from: $0) }) == nil {
                body.copyBytes(from: Array(payload))
            }
            let checksum = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: raw[4...]))
            raw.storeBytes(of: checksum.littleEndian, toByteOffset: 0, as: UInt32.self)
        }
        return bytes
    }

    /// A page's frame fields and payload, decoded and checked.
    package struct Decoded: Sendable, Equatable {
        /// The kind of the page.
        package var kind: PageKind
        /// The generation of the checkpoint that wrote the page.
        package var generation: UInt64
        /// The payload.
        package var payload: [UInt8]
    }

    /// Decodes the image of page `number` of the file at `path`.
    ///
    /// - Parameter reserved: the bytes the transform keeps at the end of the page.
    /// - Throws: ``StrataError/Code/corruptFile`` naming the file and page (offset: the page's)
    ///   when the image is not a whole page, its checksum fails, it carries another page's
    ///   number, its kind is 0 or its length does not fit.
    package static func decode(
        _ image: [UInt8], number: UInt64, pageSize: Int, reserved: Int = 0, path: String
    ) throws -> Decoded {
        func corrupt(_ what: String) -> StrataError {
            StrataError(.corruptFile, "page \(number) of \(path) is damaged: \(what)", path: path,
                        offset: number &* UInt64(pageSize))
        }
        guard image.count == pageSize else {
            throw corrupt("\(image.count) of its \(pageSize) bytes are in the file (truncated)")
        }
        return try image.withUnsafeBytes { (raw) throws -> Decoded in
            let stored = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 0, as: UInt32.self))
            guard CRC32C.checksum(UnsafeRawBufferPointer(rebasing: raw[4...])) == stored else {
                throw corrupt("checksum mismatch (torn, overwritten or never written)")
            }
            let kind = PageKind(rawValue: raw[4])
            let carried = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
            guard carried == number else {
                throw corrupt("it holds page \(carried) (a misdirected or lost write)")
            }
            guard kind.rawValue != 0 else { throw corrupt("kind 0") }
            let length = Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 24, as: UInt32.self)))
            guard length <= payloadCapacity(pageSize: pageSize, reserved: reserved) else {
                throw corrupt("payload length \(length) exceeds the page")
            }
            return Decoded(
                kind: kind,
                generation: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self)),
                payload: Array(raw[headerSize..<headerSize + length]))
        }
    }
}
