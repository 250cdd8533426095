import StrataEngine

extension Realm {
    /// Whether the Realm is in a write transaction.
    public var isInWriteTransaction: Bool {
        if case .none = writeState { return false }
        return true
    }

    /// The open engine transaction, while the write is live.
    var transaction: WriteTransaction? {
        if case .active(let transaction) = writeState { return transaction }
        return nil
    }

    /// Whether mutations should still be applied (a write is open and nothing failed).
    var writeIsLive: Bool { transaction != nil }

    /// Runs `block` in a write transaction and commits it, as Realm Swift's `write`.
    ///
    /// If `block` throws, the write is cancelled and the error propagates. If `block` calls
    /// ``cancelWrite()``, nothing is committed. A user-caused failure inside it (a duplicate
    /// primary key in `add`, an oversized string, a bad map key) cancels the transaction so that
    /// nothing is half-written, and is thrown here as a ``Realm/Error``.
    ///
    /// - Returns: what `block` returns.
    /// - Throws: what `block` throws, or the ``Realm/Error`` of a failed write or commit.
    /// Realm observers whose tokens are in `tokens` are not called for this commit.
    @discardableResult
    public func write<Result>(withoutNotifying tokens: [NotificationToken] = [], _ block: () throws -> Result) throws -> Result {
        beginWrite()
        return try completeWrite(withoutNotifying: tokens, block)
    }

    /// Runs `block` in the write transaction just begun and commits it (cancels it when `block`
    /// throws): the rest of ``write(withoutNotifying:_:)`` and of `asyncWrite`.
    func completeWrite<Result>(withoutNotifying tokens: [NotificationToken], _ block: () throws -> Result) throws -> Result {
        let result: Result
        do {
            result = try block()
        } catch {
            if isInWriteTransaction { cancelWrite() }
            throw error
        }
        if isInWriteTransaction { try commitWrite(withoutNotifying: tokens) }
        return result
    }

    /// Begins a write transaction, first advancing the Realm to the newest version.
    ///
    /// Traps if a write transaction is already open on this Realm ("The Realm is already in a
    /// write transaction"). A failure to begin (a read-only Realm, an earlier sync failure, more
    /// active versions than ``Configuration/maximumNumberOfActiveVersions`` allows) is thrown by
    /// the matching ``Realm/commitWrite(withoutNotifying:)``.
    public func beginWrite() {
        verifyCanBeginWrite()
        openWriteTransaction { try store.beginWrite() }
    }

    /// The traps of ``beginWrite()``: another thread, a frozen Realm, a write already open.
    func verifyCanBeginWrite() {
        verifyThread()
        precondition(!state.isFrozen, "Can't perform transactions on a frozen Realm")
        precondition(!isInWriteTransaction, "The Realm is already in a write transaction")
    }

    /// Advances to the newest version and opens the write transaction that `begin` starts
    /// (`begin` is not called when the newest version cannot be pinned); a failure leaves the
    /// write failed, to be thrown by the commit.
    func openWriteTransaction(_ begin: () throws -> WriteTransaction) {
        refresh()
        do {
            // The refresh could not pin the newest version: too many versions are active
            // (frozen values, other threads' Realms). Realm fails the write then.
            if state.pinned == nil || version < store.currentVersion { state.pinned = try store.pin() }
            let transaction = try begin()
            // A write event lists the write's instructions; the transaction otherwise keeps them
            // encoded only.
            transaction.keepsInstructions = isRecordingEvents
            // A commit from another thread may have landed before the lock was ours: read
            // from the version the write starts at (what the write's events compare with).
            if state.pinned?.version != transaction.baseVersion, let pin = try? store.pin(),
               pin.version == transaction.baseVersion {
                state.pinned = pin
            }
            writeState = .active(transaction)
        } catch {
            writeState = .failed(Realm.Error.wrap(error))
        }
    }

    /// Commits the write transaction.
    ///
    /// - Throws: ``Realm/Error``: the failure that cancelled the transaction, or a failure to
    ///   make the commit durable; `wrongTransactionState` when no write is open.
    /// Realm observers whose tokens are in `tokens` are not called for this commit.
    public func commitWrite(withoutNotifying tokens: [NotificationToken] = []) throws {
        verifyThread()
        switch writeState {
        case .none:
            throw Realm.Error(Realm.Error.wrongTransactionState, "Can't commit a non-existing write transaction")
        case .failed(let error):
            writeState = .none
            forgetCancelledTables()
            advance()
            throw error
        case .active(let transaction):
            writeState = .none
            let before = isRecordingEvents ? freeze() : nil
            let instructions = before == nil ? [] : transaction.instructions
            let version: UInt64
            do {
                version = try transaction.commit()
            } catch {
                forgetCancelledTables()
                advance()
                throw Realm.Error.wrap(error)
            }
            advance()
            if let before, version > transaction.baseVersion { recordWrite(instructions, before: before, after: freeze()) }
            if version > transaction.baseVersion { noteLocalCommit(version, skipping: tokens) }
            notifyRealmObservers(.didChange, skipping: tokens)
        }
    }

    /// Discards every change of the write transaction. Objects created in it become invalidated.
    ///
    /// Traps when no write transaction is open, as Realm does.
    public func cancelWrite() {
        verifyThread()
        switch writeState {
        case .none:
            preconditionFailure("Can't cancel a non-existing write transaction")
        case .failed:
            writeState = .none
        case .active(let transaction):
            transaction.cancel()
            writeState = .none
        }
        forgetCancelledTables()
        advance()
    }

    /// Records a user-caused failure inside a write: the transaction is cancelled (nothing is
    /// half-written), later mutations in the block are ignored, and `write {}` / `commitWrite()`
    /// throws the first such failure.
    func recordWriteFailure(_ error: Realm.Error) {
        if case .active(let transaction) = writeState {
            transaction.cancel()
            writeState = .failed(error)
        }
    }

    /// ``requireWrite(modifying:)`` for a property set: the same checks and traps, reading the
    /// Realm's state once, and the open transaction, or nil when an earlier failure cancelled it
    /// (the set is then dropped, as every mutation after a failure is).
    func liveTransaction(modifying what: String) -> WriteTransaction? {
        let state = self.state
        guard state.isOnOwningThread else { preconditionFailure("Realm accessed from incorrect thread.") }
        switch state.writeState {
        case .active(let transaction): return transaction
        case .failed: return nil
        case .none: _ = requireWrite(modifying: what)  // traps with the message for `what`
        }
        return nil
    }

    /// Traps unless a write transaction is open, with Realm's message for `what`.
    func requireWrite(modifying what: String) -> _WriteContext {
        verifyThread()
        if state.isFrozen {
            preconditionFailure(what == "object"
                ? "Attempting to modify a frozen object - call thaw on the Object instance first."
                : "Can't perform transactions on a frozen Realm")
        }
        guard isInWriteTransaction else {
            if what == "object" {
                preconditionFailure("Attempting to modify object outside of a write transaction - call "
                                    + "beginWriteTransaction on an RLMRealm instance first.")
            }
            preconditionFailure("Can only \(what) objects in a Realm in a write transaction - call beginWrite() "
                                + "on an RLMRealm instance first.")
        }
        return _WriteContext(realm: self, update: .error)
    }

    /// Drops cached tables that a cancelled write had created.
    private func forgetCancelledTables() {
        let snapshot = store.currentSnapshot
        tableInfos = tableInfos.filter { snapshot.table($0.value.key)?.schema.name == $0.value.classInfo.className }
    }
}
