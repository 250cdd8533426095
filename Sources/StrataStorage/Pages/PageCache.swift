import StrataSupport

/// The decoded pages of one ``PageFile`` kept in memory, bounded by bytes, evicting with CLOCK.
///
/// Every resident page counts as the file's page size, whatever its payload (an upper bound on
/// the memory it holds), so at most `capacityBytes / pageSize` pages are resident and
/// ``Statistics/residentBytes`` never exceeds the bound. A bound smaller than one page turns the
/// cache off. Pages are clean (a checkpoint writes its pages before inserting them), so
/// evicting one only drops it.
///
/// CLOCK: the resident pages sit in a ring; a hit sets the page's reference bit; to make room,
/// the hand sweeps the ring, clearing set bits and evicting the first page whose bit is clear.
///
/// Thread-safe: one lock guards the ring, the index and the counters; the page file reads and
/// decodes a missed page outside it.
package final class PageCache: Sendable {
    /// The cache's counters.
    package struct Statistics: Sendable, Equatable {
        /// Lookups that found the page resident.
        package var hits = 0
        /// Lookups that did not.
        package var misses = 0
        /// Pages dropped to make room.
        package var evictions = 0
        /// The bytes the resident pages count for (pages × page size).
        package var residentBytes = 0
        /// The number of resident pages.
        package var residentPages = 0
    }

    private struct Entry {
        var number: UInt64
        var page: PageFrame.Decoded
        var referenced: Bool
    }

    private struct State {
        var ring: [Entry] = []
        var index: [UInt64: Int] = [:]
        var hand = 0
        var statistics = Statistics()
    }

    /// The most pages resident at once.
    package let capacityPages: Int
    /// The bytes each resident page counts for.
    package let pageSize: Int
    private let state = LockedValueBox(State())

    /// Creates an empty cache for pages of `pageSize` bytes holding at most `capacityBytes`.
    package init(capacityBytes: Int, pageSize: Int) {
        self.pageSize = pageSize
        capacityPages = max(0, capacityBytes / pageSize)
    }

    /// The counters now.
    package var statistics: Statistics { state.withLockedValue { $0.statistics } }

    /// The page `number` if it is resident (counted as a hit, else as a miss).
    package func lookup(_ number: UInt64) -> PageFrame.Decoded? {
        state.withLockedValue { state in
            guard let slot = state.index[number] else {
                state.statistics.misses += 1
                return nil
            }
            state.statistics.hits += 1
            state.ring[slot].referenced = true
            return state.ring[slot].page
        }
    }

    /// Makes `page` the resident copy of page `number`, replacing any other, evicting as needed.
    package func insert(_ page: PageFrame.Decoded, number: UInt64) {
        guard capacityPages > 0 else { return }
        state.withLockedValue { state in
            if let slot = state.index[number] {
                state.ring[slot].page = page
                return
            }
            let entry = Entry(number: number, page: page, referenced: false)
            if state.ring.count < capacityPages {
                state.index[number] = state.ring.count
                state.ring.append(entry)
                state.statistics.residentPages += 1
                state.statistics.residentBytes += pageSize
                return
            }
            while state.ring[state.hand].referenced {
                state.ring[state.hand].referenced = false
                state.hand = (state.hand + 1) % state.ring.count
            }
            state.index[state.ring[state.hand].number] = nil
            state.index[number] = state.hand
            state.ring[state.hand] = entry
            state.hand = (state.hand + 1) % state.ring.count
            state.statistics.evictions += 1
        }
    }
}
