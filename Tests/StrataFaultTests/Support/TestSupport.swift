// The shared test helpers (temporary directories, seeded random numbers, threads) for every file
// of this target.
@_exported import StrataTestSupport
