/// The node cache's counters, as ``Store/cacheStatistics`` reads them.
package struct CacheStatistics: Sendable, Hashable {
    /// The configured capacity, in bytes (see ``StoreConfiguration/cacheSize``).
    package var capacity: Int
    /// The estimated bytes of the leaves the cache holds now.
    package var residentBytes: Int
    /// The uses of held leaves that found them in memory, since open (see ``NodeCache/hits``).
    package var hits: Int
    /// The tree nodes read from the page file since open.
    package var misses: Int
    /// The leaves evicted since open.
    package var evictions: Int
    /// The estimated bytes of the leaves changed since the last checkpoint.
    package var changedBytes: Int
    /// The ``changedBytes`` past which a checkpoint starts.
    package var changedBytesLimit: Int
}

extension Store {
    /// The node cache's counters; nil for an in-memory store, which has no cache.
    ///
    /// - Complexity: O(n) in the leaves the cache holds (see ``NodeCache/hits``).
    package var cacheStatistics: CacheStatistics? {
        guard let cache = files?.cache else { return nil }
        return CacheStatistics(capacity: cache.capacity, residentBytes: cache.residentBytes, hits: cache.hits,
                               misses: cache.nodeReads, evictions: cache.evictions, changedBytes: cache.dirtyBytes,
                               changedBytesLimit: cache.dirtyLimit)
    }

    /// The bytes of every log segment since the last checkpoint (0 for an in-memory store): what
    /// the next checkpoint covers, and what an open after a crash reads back.
    package var logBytesSinceCheckpoint: UInt64 { files?.log.totalSize ?? 0 }

    /// The path of the store's page file; nil for an in-memory store.
    package var pagePath: String? { files?.path }

    /// The store open in this process at `location`, if any (opening nothing).
    package static func openStore(at location: StoreConfiguration.Location) -> Store? {
        StoreRegistry.shared.existing(location)
    }
}
