#if canImport(Glibc)
import CStrataHeap
import Glibc
#endif

/// Keeps glibc from handing the top of the heap back to the kernel after every large free.
///
/// glibc returns free memory at the top of its heap to the kernel once more than 128 KiB of it
/// gather (`M_TRIM_THRESHOLD`), and raises that threshold by itself only after the process frees
/// a block larger than 128 KiB that it had mapped on its own. A query that keeps the rows of its
/// matches allocates and frees a few megabytes each time it runs; with the default threshold the
/// heap shrinks after it and grows again at the next run, and every page is faulted in afresh:
/// 930 page faults and 2.5 ms of a 6 ms filtered sort over 100,000 objects on a 2-core VM
/// (3.4 ms with the threshold raised). The first store opened in a process raises it to 32 MiB,
/// the bound glibc's own adjustment reaches, unless the process chose one itself
/// (`MALLOC_TRIM_THRESHOLD_`, or `glibc.malloc.trim_threshold` in `GLIBC_TUNABLES`).
enum HeapTrimming {
    /// The threshold set: 32 MiB.
    static let threshold: Int32 = 32 << 20

    /// Whether the threshold was set (false when the process chose its own, when malloc is not
    /// glibc's, e.g. under AddressSanitizer, which refuses `mallopt`, or off Linux).
    static let applied: Bool = !chosenByProcess && setThreshold()

    /// Whether the process chose a trim threshold itself (`MALLOC_TRIM_THRESHOLD_`, or
    /// `glibc.malloc.trim_threshold` in `GLIBC_TUNABLES`).
    static var chosenByProcess: Bool {
        #if canImport(Glibc)
        if getenv("MALLOC_TRIM_THRESHOLD_") != nil { return true }
        if let tunables = getenv("GLIBC_TUNABLES"), String(cString: tunables).contains("trim_threshold") { return true }
        #endif
        return false
    }

    /// Sets the threshold; returns whether the allocator accepted it.
    static func setThreshold() -> Bool {
        #if canImport(Glibc)
        return strata_set_heap_trim_threshold(threshold) == 1
        #else
        return false
        #endif
    }

    /// Sets the threshold once per process (see the type's documentation).
    static func applyOnce() { _ = applied }

    /// Returns the heap's free memory to the kernel, wherever it lies (`malloc_trim(0)`), after
    /// work that freed much memory at once and will not soon need it again: an open that replayed
    /// a log (its records, read back whole, and the changes it replayed, once a checkpoint wrote
    /// them and the cache dropped them). Without it the process kept that memory: after
    /// replaying 60 MB of log at 1M rows with a 16 MiB cache, 156 MB of anonymous memory once the
    /// replay was checkpointed, 33 MB with it. A few milliseconds for a heap of some hundred MB.
    static func releaseFreeMemory() {
        #if canImport(Glibc)
        _ = strata_release_free_heap_memory()
        #endif
    }
}
