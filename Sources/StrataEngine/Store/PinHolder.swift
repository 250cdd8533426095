/// What holds a pinned version: reported by ``Store/statistics`` so that an operator can tell
/// which part of a program keeps an old version alive.
///
/// Each ``PinnedSnapshot`` carries one; the layer that pins says what it pins for (a Realm on a
/// thread, a frozen Realm, a thread-safe reference, a notifier), and can say it again when the
/// pin changes hands (``PinnedSnapshot/relabel(_:)``).
package struct PinHolder: Sendable, Hashable {
    /// The kinds of holders.
    package enum Kind: Sendable, Hashable {
        /// A live Realm (and the objects and collections read through it), confined to a
        /// thread, queue, actor or scheduler.
        case realm
        /// A frozen Realm, object or collection.
        case frozen
        /// A thread-safe reference not resolved yet.
        case threadSafeReference
        /// A change notifier (its baseline, or the version it prepares).
        case notifier
        /// Any other pin of the engine (its own callers, tests).
        case other
    }

    /// What kind of holder this is.
    package var kind: Kind
    /// Which one, in words (a thread's name, a queue's label, a type).
    package var description: String

    /// A holder of `kind`, described by `description`.
    package init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }

    /// The holder of a pin nobody described.
    package static let unlabelled = PinHolder(.other, "a pin of the engine")
}

/// One pin the store counts, as ``StoreStatistics/pins`` lists it.
package struct PinRecord: Sendable, Hashable {
    /// The pinned version.
    package var version: UInt64
    /// What holds it.
    package var holder: PinHolder
}
