/// Counters describing a store's state, for tests, benchmarks and operators.
package struct StoreStatistics: Sendable, Hashable {
    /// The newest version visible to readers.
    package var publishedVersion: UInt64
    /// How many distinct versions are pinned.
    package var pinnedVersions: Int
    /// How many changesets are retained for pinned readers.
    package var retainedChangesets: Int
    /// How many commits have been written since open.
    package var commits: UInt64
    /// How many log syncs group commit has performed since open (fewer than commits when
    /// concurrent commits shared a sync).
    package var groupSyncs: UInt64
    /// How many checkpoints have completed since open.
    package var checkpoints: UInt64
    /// The number of log segment files.
    package var logSegments: Int
    /// The bytes of the current log segment's header and records (not the space reserved after them).
    package var logBytes: UInt64
    /// The bytes of the log records commits appended since open, over every segment.
    package var logBytesAppended: UInt64
    /// The message of the last failure of a checkpoint the store started itself (in the
    /// background, or at open after recovering a large log), if any.
    package var lastCheckpointError: String?
}
