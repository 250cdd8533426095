import StrataSupport

/// The one place where page bytes change between memory and disk (encryption, later).
///
/// A ``PageFile`` builds each page's image in memory (see ``PageFrame``: the frame, the
/// payload, zeros, and the last ``reservedBytes`` bytes left zero for the transform), then
/// calls ``encode(_:pageNumber:)`` and writes what it returns; it reads a page's bytes from
/// disk and calls ``decode(_:pageNumber:path:)`` before checking the frame. Nothing else in the
/// storage layer reads or writes page bytes, so nothing else may assume they are plaintext.
///
/// An encrypting transform (AES-GCM with swift-crypto, a later issue) keeps the page's size:
/// it encrypts bytes `0 ..< pageSize - reservedBytes` and stores its nonce and tag in the
/// reserved tail (12 + 16 bytes for AES-GCM), which every page leaves free for it. A failed
/// authentication is reported by ``decode(_:pageNumber:path:)`` as
/// ``StrataError/Code/corruptFile``, as a checksum mismatch is.
///
/// The two header slots (pages 0 and 1) are not transformed: they must be readable before
/// anything else is known about the file. They record the transform's ``identifier``, so a file
/// is never read with the wrong transform; they hold no user data (sizes, page numbers, the
/// log position and the engine's roots blob, which must hold no user data either).
package protocol PageTransform: Sendable {
    /// The code the header slots record for this transform (0 is ``IdentityPageTransform``).
    var identifier: UInt32 { get }

    /// How many bytes at the end of every page the transform keeps for itself (0...256).
    var reservedBytes: Int { get }

    /// Turns the image of page `pageNumber` into the bytes to write, in place, keeping its size.
    ///
    /// - Throws: any error makes the checkpoint fail before it writes anything.
    func encode(_ page: inout [UInt8], pageNumber: UInt64) throws

    /// Turns the bytes read for page `pageNumber` of the file at `path` back into its image, in
    /// place.
    ///
    /// - Throws: ``StrataError/Code/corruptFile`` naming the file and page when the bytes do
    ///   not authenticate.
    func decode(_ page: inout [UInt8], pageNumber: UInt64, path: String) throws
}

/// The transform that stores page images as they are (transform code 0): no encryption.
package struct IdentityPageTransform: PageTransform {
    /// Creates the identity transform.
    package init() {}

    /// Always 0.
    package var identifier: UInt32 { 0 }

    /// Always 0: the identity transform needs no space.
    package var reservedBytes: Int { 0 }

    /// Leaves the bytes as they are.
    package func encode(_ page: inout [UInt8], pageNumber: UInt64) {}

    /// Leaves the bytes as they are.
    package func decode(_ page: inout [UInt8], pageNumber: UInt64, path: String) {}
}
