import StrataSupport

/// Counters describing a store's state, for tests, benchmarks and operators.
package struct StoreStatistics: Sendable {
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
    /// The failed checkpoints and the last one's error, and how long the last successful one
    /// took.
    package var checkpoint = CheckpointRecord()
    /// The versions pinned now, oldest first, each with what holds it.
    package var heldVersions: [HeldVersionStatistics] = []
}

/// What the store records of its checkpoints beside their count (see ``StoreStatistics``).
package struct CheckpointRecord: Sendable {
    /// How many checkpoints failed since open: those the store started itself (in the
    /// background, or at open) and those a caller asked for.
    package var failures: UInt64 = 0
    /// The error of the last failed checkpoint, if one failed since open (kept after later
    /// successes: ``lastFailureVersion`` says which version it was after).
    package var lastFailure: StrataError?
    /// The newest version when the last failed checkpoint began.
    package var lastFailureVersion: UInt64?
    /// How long the last successful checkpoint took, from the wait for writers to the trimmed log.
    package var lastDuration: Duration?

    /// An empty record.
    package init() {}
}

/// One pinned version, as ``StoreStatistics/heldVersions`` lists it.
package struct HeldVersionStatistics: Sendable, Hashable {
    /// The version.
    package var version: UInt64
    /// What holds it, one entry per pin, in the order the pins were taken.
    package var holders: [PinHolder]
    /// The changesets the store keeps for this version alone: released with its last pin. Only
    /// the oldest pinned version has any (the changesets after it, up to the next pinned
    /// version, or every kept one when no other version is pinned).
    package var exclusiveChangesets: Int
    /// The estimated memory of those changesets (see ``Changeset/estimatedBytes``).
    package var exclusiveChangesetBytes: Int
}

extension Store {
    /// The pinned versions of `state`, oldest first, with their holders and what only each keeps.
    ///
    /// - Complexity: O(p log p + h) for p pins and h kept changesets.
    static func heldVersions(_ state: PublishedState) -> [HeldVersionStatistics] {
        var holders: [UInt64: [(id: Int, holder: PinHolder)]] = [:]
        for (id, record) in state.pinRecords { holders[record.version, default: []].append((id, record.holder)) }
        let versions = state.pins.keys.sorted()
        return versions.enumerated().map { index, version in
            var exclusive = (count: 0, bytes: 0)
            if index == 0 {
                let next = versions.count > 1 ? versions[1] : UInt64.max
                for changeset in state.history where changeset.version <= next {
                    exclusive.count += 1
                    exclusive.bytes += changeset.estimatedBytes
                }
            }
            let held = (holders[version] ?? []).sorted { $0.id < $1.id }.map(\.holder)
            return HeldVersionStatistics(version: version, holders: held, exclusiveChangesets: exclusive.count,
                                         exclusiveChangesetBytes: exclusive.bytes)
        }
    }
}
