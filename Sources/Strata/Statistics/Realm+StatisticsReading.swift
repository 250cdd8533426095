import StrataEngine

extension Realm {
    /// What this Realm's file costs now: its file, log, cache, checkpoints and the versions held
    /// open, with what holds each (this Realm's own version among them). See <doc:Statistics>.
    ///
    /// - Complexity: O(p log p + h + c) for p holds, h kept changesets and c cached pages.
    public var statistics: Statistics { Statistics(store) }

    /// The statistics of the file `configuration` names, if a Realm of it is open in this process
    /// (nil otherwise: this opens nothing). Callable from any thread; a metrics reporter's way in.
    ///
    /// - Complexity: as ``statistics``.
    public static func statistics(for configuration: Configuration) -> Statistics? {
        Store.openStore(at: configuration.storeConfiguration.location).map(Statistics.init)
    }
}

extension Realm.Statistics {
    /// The statistics of `store`.
    init(_ store: Store) {
        let counters = store.statistics
        let usage = store.fileUsage
        path = store.pagePath
        version = counters.publishedVersion
        commits = counters.commits
        fileBytes = usage?.total ?? 0
        fileBytesInUse = usage?.used ?? 0
        logBytes = store.logBytesSinceCheckpoint
        logSegments = counters.logSegments
        cache = store.cacheStatistics.map(Cache.init)
        checkpoints = Checkpoints(count: counters.checkpoints, failures: counters.checkpoint.failures,
                                  lastDuration: counters.checkpoint.lastDuration,
                                  lastError: counters.checkpoint.lastFailure.map(Realm.Error.init),
                                  lastErrorVersion: counters.checkpoint.lastFailureVersion)
        heldVersions = counters.heldVersions.map { HeldVersion($0, newest: counters.publishedVersion) }
    }
}

extension Realm.Statistics.Cache {
    init(_ cache: CacheStatistics) {
        self.init(capacity: cache.capacity, bytesHeld: cache.residentBytes, hits: UInt64(cache.hits),
                  misses: UInt64(cache.misses), evictions: UInt64(cache.evictions),
                  changedBytesAwaitingCheckpoint: cache.changedBytes)
    }
}

extension Realm.Statistics.HeldVersion {
    init(_ held: HeldVersionStatistics, newest: UInt64) {
        self.init(version: held.version, versionsBehind: newest > held.version ? newest - held.version : 0,
                  holders: held.holders.map(Realm.Statistics.Holder.init),
                  changesetsKeptForItAlone: held.exclusiveChangesets, bytesKeptForItAlone: held.exclusiveChangesetBytes)
    }
}

extension Realm.Statistics.Holder {
    init(_ holder: PinHolder) {
        let kind: Kind
        switch holder.kind {
        case .realm: kind = .realm
        case .frozen: kind = .frozen
        case .threadSafeReference: kind = .threadSafeReference
        case .notifier: kind = .notifier
        case .other: kind = .other
        }
        self.init(kind: kind, description: holder.description)
    }
}
