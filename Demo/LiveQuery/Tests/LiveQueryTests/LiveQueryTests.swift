import Testing

/// The example's suites, run one test at a time: each test starts a server, a store loop and, for
/// the WebSocket tests, a client of its own; one at a time keeps the run light on CI's two cores.
@Suite("The LiveQuery example", .serialized)
struct LiveQueryTests {}
