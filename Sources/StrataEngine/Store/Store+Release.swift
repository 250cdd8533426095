import StrataStorage
import StrataSupport

/// Why the store runs a checkpoint of its own (see ``Store/runCheckpoint(_:)``).
package enum CheckpointTrigger: String, Sendable, Hashable {
    /// The log passed ``StoreConfiguration/checkpointThreshold``, or the leaves commits changed
    /// passed the cache's share (a background checkpoint a commit started).
    case logOrCache = "log or cache threshold"
    /// The open read back a log larger than the threshold (checkpointed before the open returns).
    case recoveredLog = "recovered log"
    /// The open replayed records (checkpointed before the open returns).
    case replay = "replayed log"
    /// The store's last user let go.
    case release = "release"
}

extension Store {
    /// Checkpoints the store when its last user lets go, as SQLite checkpoints its write-ahead
    /// log when the last connection closes: the next open then reads the page file's header and
    /// catalog and replays nothing. Called by `deinit`, on the thread that released the last
    /// reference, before the store's files close.
    ///
    /// Runs only when there is something to write (the log holds records after the last
    /// checkpoint, or segments a stopped checkpoint left), and never for an in-memory or
    /// read-only store, a poisoned one (its log cannot be trusted to sync: recorded as a
    /// failure), or one whose configuration turns it off (``StoreConfiguration/checkpointsOnRelease``).
    ///
    /// Safe in `deinit`: nothing else can reach the store any more (the registry's reference is
    /// weak, and an open of the same path waits for the close to end), so the checkpoint's
    /// locks (its serial lock, the write gate, the published state) are free, and it takes no
    /// lock of another object. It loses nothing when it fails: the log is trimmed only after the
    /// new checkpoint is durable, so the next open replays what this one did not write. The
    /// outcome is reported like any checkpoint the store starts (see ``runCheckpoint(_:)``) and
    /// kept for the path in ``StoreRegistry/lastReleaseCheckpointError(at:)``; nothing throws.
    func checkpointOnRelease() {
        guard let files, configuration.checkpointsOnRelease, !configuration.readOnly else { return }
        let outcome: Result<Void, any Error>
        if let poison = poisonError {
            outcome = .failure(poison)
        } else if files.log.segmentCount == 1 && files.log.currentSegmentIsEmpty {
            outcome = .success(())  // nothing after the last checkpoint
        } else {
            outcome = runCheckpoint(.release)
        }
        StoreRegistry.shared.noteReleaseCheckpoint(registryKey, outcome: outcome)
    }
}
