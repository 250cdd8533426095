import StrataStorage
import StrataSupport

extension Store {
    /// Commits a transaction's result. Called by ``WriteTransaction/commit()`` with the write
    /// gate held; releases it.
    ///
    /// The record is appended under the gate (so log order is commit order). With `.normal`
    /// durability, or in memory, the new version is published before the gate is released.
    /// With `.full`, the gate is released first and the commit waits in group commit, whose
    /// leader syncs once for every record written so far and publishes them in order.
    func commit(snapshot: Snapshot, instructions: [Instruction]) throws -> UInt64 {
        guard !instructions.isEmpty else {
            endWrite()
            return snapshot.version
        }
        let version = writerHead.version + 1
        var next = snapshot
        next.version = version
        let changeset = Changeset(version: version, instructions: instructions)

        if let files {
            var record = LogRecord.makeWriter(capacity: instructions.count * 32)
            record.write(instructions)
            LogRecord.seal(&record, version: version)
            do {
                try files.log.append(record.bytes)
            } catch {
                poison(with: error)
                endWrite()
                throw error
            }
        }
        writerHead = next

        guard let groupCommit, let files else {
            publish([(next, changeset)])
            endWrite()
            scheduleCheckpointIfNeeded()
            return version
        }
        state.withLockedValue { $0.pending.append((next, changeset)) }
        groupCommit.noteWritten(version)
        endWrite()
        try groupCommit.waitUntilDurable(version, sync: { try files.log.sync() }, publish: publishPending(upTo:))
        scheduleCheckpointIfNeeded()
        return version
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
