import StrataStorage

/// What opening a store replayed of its commit log: the records after the page file's
/// checkpoint, applied one by one to rebuild the newest version.
///
/// A store whose last user let go is checkpointed (see ``Store/checkpointOnRelease()``), and an
/// open that replayed records checkpoints them before it returns (see
/// ``Store/checkpointAfterRecovery()``), so the next open replays nothing: tests and the
/// benchmark's scale series read this to see it.
package struct ReplayedLog: Sendable, Hashable {
    /// The records replayed.
    package var records = 0
    /// Their bytes in the log, headers included.
    package var bytes: UInt64 = 0

    /// Nothing replayed.
    package init() {}

    /// Counts one replayed record.
    mutating func note(_ record: CommitLog.RecoveredRecord) {
        records += 1
        bytes += UInt64(LogRecord.headerSize + record.payload.count)
    }
}
