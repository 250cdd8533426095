/// A string compared and hashed by its UTF-8 bytes, as the store compares primary keys and
/// indexed strings, rather than by Swift's `String` equality, which holds for canonically
/// equivalent text in different bytes (`"café"` precomposed, U+00E9, and decomposed, `e` +
/// U+0301; `"Å"` as U+212B and U+00C5).
///
/// Two such ids are two events to the store: de-duplicating them with `Set<String>` would
/// acknowledge both and store one. Every place the daemon compares ids (or other keys the store
/// compares by bytes) goes through this type.
struct UTF8Key: Hashable, Sendable, CustomStringConvertible {
    /// The string.
    let string: String

    init(_ string: String) { self.string = string }

    static func == (left: UTF8Key, right: UTF8Key) -> Bool {
        left.string.utf8.elementsEqual(right.string.utf8)
    }

    func hash(into hasher: inout Hasher) {
        var string = string
        string.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }

    var description: String { string }
}
