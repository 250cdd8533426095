import StrataSupport

extension Store {
    /// Registers `body` to be called after every newly published version, with that version,
    /// on the committing thread (or the group-commit leader), outside the store's locks.
    ///
    /// Keep `body` short: it runs on the commit path. Notifier workers use it to wake up.
    /// Observers are called in the order they were registered (a commit clock registered before
    /// the notifier stamps the commit before any notification can be delivered).
    ///
    /// - Returns: an identifier for ``removePublishObserver(_:)``.
    package func addPublishObserver(_ body: @escaping @Sendable (UInt64) -> Void) -> Int {
        publishObservers.withLockedValue { observers in
            defer { observers.nextID += 1 }
            observers.entries[observers.nextID] = body
            return observers.nextID
        }
    }

    /// Stops calling the observer registered under `id`.
    package func removePublishObserver(_ id: Int) {
        publishObservers.withLockedValue { $0.entries[id] = nil }
    }

    func notifyPublished(_ version: UInt64) {
        let observers = publishObservers.withLockedValue { state in
            state.entries.sorted { $0.key < $1.key }.map(\.value)
        }
        for observer in observers { observer(version) }
    }

    /// Pins the newest visible snapshot without checking
    /// ``StoreConfiguration/maximumNumberOfActiveVersions``: for the store's own machinery
    /// (notifiers, `freeze()`), which must not fail where the user's read would not.
    ///
    /// The pin still counts: while more versions are pinned than the limit, ``beginWrite()``
    /// throws ``StrataError/Code/tooManyActiveVersions``, so these pins cannot grow without bound.
    package func pinForNotifier(holder: PinHolder = .unlabelled) -> PinnedSnapshot {
        let (snapshot, id) = state.withLockedValue { state -> (Snapshot, Int) in
            (state.published, Self.addPin(of: state.published.version, holder: holder, to: &state))
        }
        return PinnedSnapshot(snapshot: snapshot, id: id, store: self)
    }

    /// Another hold on an already pinned version (never a new active version; it keeps the
    /// version active, and so counted by ``beginWrite()``, until released).
    package func pin(again pinned: PinnedSnapshot, holder: PinHolder = .unlabelled) -> PinnedSnapshot {
        let id = state.withLockedValue { Self.addPin(of: pinned.version, holder: holder, to: &$0) }
        return PinnedSnapshot(snapshot: pinned.snapshot, id: id, store: self)
    }
}

/// The publish observers of a store.
struct PublishObservers {
    var entries: [Int: @Sendable (UInt64) -> Void] = [:]
    var nextID = 0
}

extension Store {
    /// The object stored under `key` beside this store, created by `make` on first use; it lives
    /// as long as the store. Higher layers keep per-store machinery (the notifier worker) here.
    package func attachment<T: AnyObject & Sendable>(_ key: String, make: () -> T) -> T {
        attachments.withLockedValue { attachments in
            if let existing = attachments[key] as? T { return existing }
            let created = make()
            attachments[key] = created
            return created
        }
    }
}
