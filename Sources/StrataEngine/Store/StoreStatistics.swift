/// Counters describing a store's state, for tests, benchmarks and operators.
public struct StoreStatistics: Sendable, Hashable {
    /// The newest version visible to readers.
    public var publishedVersion: UInt64
    /// How many distinct versions are pinned.
    public var pinnedVersions: Int
    /// How many changesets are retained for pinned readers.
    public var retainedChangesets: Int
    /// How many commits have been written since open.
    public var commits: UInt64
    /// How many log syncs group commit has performed since open (fewer than commits when
    /// concurrent commits shared a sync).
    public var groupSyncs: UInt64
    /// How many checkpoints have completed since open.
    public var checkpoints: UInt64
    /// The number of log segment files.
    public var logSegments: Int
    /// The size of the current log segment in bytes.
    public var logBytes: UInt64
    /// The message of the last background checkpoint failure, if any.
    public var lastCheckpointError: String?
}
