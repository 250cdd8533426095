#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether this process runs under ThreadSanitizer: its runtime, linked into a
/// `--sanitize=thread` build, exports `__tsan_init`.
///
/// For the few assertions about timing that ThreadSanitizer changes: it slows the CPU work it
/// instruments (5 to 15 times) but not system calls such as `fdatasync`, so work that overlaps
/// a sync in a plain build may run one piece at a time under it.
public let isRunningUnderThreadSanitizer: Bool = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__tsan_init") != nil

/// Whether this process runs under AddressSanitizer: its runtime, linked into a
/// `--sanitize=address` build, exports `__asan_init`.
public let isRunningUnderAddressSanitizer: Bool = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__asan_init") != nil
