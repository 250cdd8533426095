import StrataEngine

extension Realm {
    /// Whether the Realm is frozen: pinned to one version forever, readable from any thread,
    /// never written or observed.
    public var isFrozen: Bool { state.isFrozen }

    /// A frozen Realm at this Realm's current version (inside a write, the version the write
    /// started from), as Realm Swift's `freeze()`. Everything read from it is frozen too.
    ///
    /// The frozen Realm pins its version: it counts against
    /// ``Configuration/maximumNumberOfActiveVersions`` until the last frozen Realm, object or
    /// collection of that version is gone. Freezing never fails (as in Realm Swift, where
    /// `freeze()` cannot throw); past the limit, the next write fails instead.
    public func freeze() -> Realm {
        if isFrozen { return self }
        verifyThread()
        let pin = pinnedForReading
        if let cached = state.frozenState, cached.pinned?.version == pin.version {
            return Realm(state: cached, configuration: configuration)
        }
        let frozen = RealmState.frozen(from: state, version: pin)
        state.frozenState = frozen
        return Realm(state: frozen, configuration: configuration)
    }

    /// The live Realm of this file on the calling thread, at its current version (a frozen
    /// Realm's `thaw()`); a live Realm returns itself.
    ///
    /// Traps when the file cannot be opened any more (Realm Swift's `thaw()` cannot fail).
    public func thaw() -> Realm {
        guard isFrozen else { return self }
        do {
            return try Realm(configuration: configuration)
        } catch {
            preconditionFailure("Cannot thaw: opening the Realm failed: \(error)")
        }
    }

    /// The pinned version reads use outside a write (the write's base version inside one).
    var pinnedForReading: PinnedSnapshot {
        _ = readSnapshot
        if let pinned = state.pinned { return pinned }
        return store.pinForNotifier()
    }
}
