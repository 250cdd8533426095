import StrataStorage
import StrataSupport

extension Store {
    /// A commit whose record is in the log (and, unless it must wait for a sync, published).
    ///
    /// ``WriteTransaction/commit()`` is ``log(snapshot:spool:)`` then
    /// ``waitUntilDurable(_:)``. The record is appended under the write gate (so log order is
    /// commit order). With `.normal` durability, or in memory, the new version is published
    /// before the gate is released. With `.full`, the gate is released first and the commit
    /// waits in group commit, whose leader syncs once for every record written so far and
    /// publishes them in order.
    struct LoggedCommit {
        var version: UInt64
        /// Whether the commit is acknowledged only after a group-commit sync covers it.
        var needsSync: Bool
    }

    /// The first half of a commit, called with the write gate held: appends the record and
    /// releases the gate. The commit is not acknowledged until ``waitUntilDurable(_:)`` returns.
    ///
    /// A record whose encoded instructions are all in memory goes to the log in one write; a
    /// large one's is streamed from its scratch file (see ``InstructionSpool``). A failure to
    /// read the scratch file back or to write the log poisons the store, as any failed append.
    func log(snapshot: Snapshot, spool: consuming InstructionSpool) throws -> LoggedCommit {
        guard spool.count > 0 else {
            endWrite()
            return LoggedCommit(version: snapshot.version, needsSync: false)
        }
        let version = writerHead.version + 1
        var next = snapshot
        next.version = version
        let summary = spool.summary, collectionEdits = spool.collectionEdits
        let spooled = spool.finish()
        let changeset = Changeset(version: version, summary: summary, collectionEdits: collectionEdits, spooled: spooled)

        if let files {
            guard spooled.payloadLength <= maximumCommitPayload else {
                endWrite()
                throw StrataError(.invalidInput, "the transaction encodes to \(spooled.payloadLength) bytes; one commit "
                                  + "holds at most \(maximumCommitPayload) bytes")
            }
            do {
                if spooled.isInMemory {
                    var record = LogRecord.makeWriter(capacity: spooled.payloadLength)
                    spooled.write(to: &record)
                    LogRecord.seal(&record, version: version)
                    try files.log.append(record.takeBytes())
                } else {
                    try files.log.append(version: version, payloadLength: spooled.payloadLength) { sink in
                        try spooled.forEachPiece(sink)
                    }
                }
            } catch {
                poison(with: error)
                endWrite()
                throw error
            }
        }
        writerHead = next

        guard let groupCommit else {
            state.withLockedValue { $0.loggedVersion = version }
            publish([(next, changeset)])
            endWrite()
            scheduleCheckpointIfNeeded()
            return LoggedCommit(version: version, needsSync: false)
        }
        state.withLockedValue {
            $0.loggedVersion = version
            $0.pending.append((next, changeset))
        }
        groupCommit.noteWritten(version)
        endWrite()
        return LoggedCommit(version: version, needsSync: true)
    }

    /// The second half of a commit: returns once `logged` is durable
    /// and published (at once when it needs no sync).
    ///
    /// - Throws: ``StrataError/Code/poisoned`` when the sync that would cover it, or any earlier
    ///   sync of the log (a checkpoint's too), failed.
    func waitUntilDurable(_ logged: LoggedCommit) throws {
        guard logged.needsSync, let groupCommit, let files else { return }
        try groupCommit.waitUntilDurable(logged.version, gather: awaitWritersInTransaction(for:),
                                         sync: { try files.log.sync() }, publish: publishPending(upTo:))
        scheduleCheckpointIfNeeded()
    }

    /// Publishes every pending commit up to `version`, in order. Idempotent.
    func publishPending(upTo version: UInt64) {
        let published = state.withLockedValue { state -> Bool in
            let ready = state.pending.prefix { $0.snapshot.version <= version }
            guard !ready.isEmpty else { return false }
            state.pending.removeFirst(ready.count)
            Self.publish(Array(ready), into: &state)
            return true
        }
        if published { notifyPublished(version) }
    }

    private func publish(_ entries: [(snapshot: Snapshot, changeset: Changeset)]) {
        state.withLockedValue { Self.publish(entries, into: &$0) }
        if let last = entries.last { notifyPublished(last.snapshot.version) }
    }

    private static func publish(_ entries: [(snapshot: Snapshot, changeset: Changeset)], into state: inout PublishedState) {
        for (snapshot, changeset) in entries where snapshot.version > state.published.version {
            state.published = snapshot
            state.commits += 1
            if !state.pins.isEmpty { state.history.append(changeset) }
        }
    }

    func poison(with error: any Error) {
        let failure = (error as? StrataError) ?? StrataError(.fileAccess, "\(error)")
        state.withLockedValue { state in
            if state.poison == nil {
                state.poison = StrataError(.poisoned,
                                           "writing the commit log failed (\(failure.message)); the store refuses "
                                               + "writes until it is reopened", path: failure.path, errno: failure.errno)
            }
        }
    }
}
