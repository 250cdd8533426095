// swift-tools-version:6.2
import PackageDescription

/// Strata's layers (the DocC article "How the engine works" describes each), bottom to top:
/// StrataSupport, StrataValues → StrataStorage → StrataEngine → StrataQuery → StrataNotify (with StrataEventLoop) → Strata.
/// Arrows point down only; the public products are the `Strata` library, `RealmSwift`, the
/// opt-in `StrataMetrics` bridge and `StrataNIO` (Realms on swift-nio event loops).
///
/// Only libraries live here, so a package that depends on Strata resolves none of the demo
/// executables' dependencies: the demo daemon, its load generator and the example program are the
/// package in Demo/ (`swift run --package-path Demo strata-eventd --demo`), the benchmark harness
/// the one in Benchmarks/.
let strictSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .treatAllWarnings(as: .error),
]

let package = Package(
    name: "Strata",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Strata", targets: ["Strata"]),
        .library(name: "RealmSwift", targets: ["RealmSwift"]),
        .library(name: "StrataMetrics", targets: ["StrataMetrics"]),
        .library(name: "StrataNIO", targets: ["StrataNIO"]),
        // Not API: the test helpers and the libFuzzer replay mode, as products only so that the
        // Demo package's tests and fuzz targets share them (a target cannot use another package's
        // targets otherwise). They carry no semantic-versioning promise.
        .library(name: "StrataTestSupport", targets: ["StrataTestSupport"]),
        .library(name: "StrataFuzzSupport", targets: ["StrataFuzzSupport"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: [
        .systemLibrary(
            name: "CLibUV",
            pkgConfig: "libuv",
            providers: [.apt(["libuv1-dev"])]
        ),
        .target(name: "StrataSupport", swiftSettings: strictSettings),
        // The value types models store beside Swift's own (ObjectId, Decimal128): public, and
        // re-exported by Strata.
        .target(name: "StrataValues", swiftSettings: strictSettings),
        // CRC-32C with the CPU's instruction (StrataStorage's CRC32C falls back to a table without it).
        .target(name: "CStrataChecksum"),
        // A cache-line prefetch for scans (a C builtin Swift has no spelling for).
        .target(name: "CStrataPrefetch"),
        // glibc's heap trim threshold (malloc.h is not in Swift's Glibc module).
        .target(name: "CStrataHeap"),
        .target(name: "StrataStorage", dependencies: ["StrataSupport", "CStrataChecksum"], swiftSettings: strictSettings),
        .target(
            name: "StrataEngine",
            dependencies: ["StrataSupport", "StrataValues", "StrataStorage", "CStrataPrefetch", "CStrataHeap"],
            swiftSettings: strictSettings
        ),
        .target(name: "StrataQuery", dependencies: ["StrataEngine"], swiftSettings: strictSettings),
        .target(name: "StrataEventLoop", dependencies: ["CLibUV", "StrataSupport"], swiftSettings: strictSettings),
        .target(
            name: "StrataNotify", dependencies: ["StrataEngine", "StrataQuery", "StrataEventLoop"],
            swiftSettings: strictSettings),
        .target(
            name: "Strata",
            dependencies: [
                "StrataEngine", "StrataQuery", "StrataEventLoop", "StrataNotify",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings),
        // The opt-in swift-metrics bridge: a separate product, so that users without it never build it.
        .target(
            name: "StrataMetrics",
            dependencies: ["Strata", "StrataSupport", .product(name: "Metrics", package: "swift-metrics")],
            swiftSettings: strictSettings),
        .target(name: "RealmSwift", dependencies: ["Strata"], swiftSettings: strictSettings),
        // Realms confined to a swift-nio EventLoop: a product of its own, so only its users build swift-nio.
        .target(
            name: "StrataNIO", dependencies: ["Strata", .product(name: "NIOCore", package: "swift-nio")],
            swiftSettings: strictSettings),
        .executableTarget(
            name: "strata-crash-worker",
            dependencies: ["StrataEngine", "StrataStorage"],
            path: "Tests/CrashWorker",
            swiftSettings: strictSettings
        ),
        // Helpers every test target shares (temporary directories, seeded random numbers, threads).
        .target(
            name: "StrataTestSupport",
            dependencies: ["StrataSupport", .product(name: "Logging", package: "swift-log")],
            path: "Tests/StrataTestSupport",
            swiftSettings: strictSettings),
        .testTarget(
            name: "StrataStorageTests", dependencies: ["StrataStorage", "StrataTestSupport"], swiftSettings: strictSettings),
        .testTarget(
            name: "StrataQueryTests", dependencies: ["StrataQuery", "StrataTestSupport"], exclude: ["FuzzCorpus"], swiftSettings: strictSettings),
        .testTarget(
            name: "StrataEngineTests", dependencies: ["StrataEngine", "StrataTestSupport"], swiftSettings: strictSettings),
        .testTarget(
            name: "StrataCrashTests",
            dependencies: ["StrataEngine", "StrataStorage", "StrataTestSupport", "strata-crash-worker"],
            swiftSettings: strictSettings
        ),
        // The fault harness: power-loss simulation and I/O fault injection against the real store.
        .testTarget(
            name: "StrataFaultTests",
            dependencies: ["StrataEngine", "StrataStorage", "StrataTestSupport", "strata-storage-fuzz"],
            exclude: ["FuzzCorpus"], swiftSettings: strictSettings),
        .testTarget(name: "StrataTests", dependencies: ["Strata", "StrataTestSupport"], swiftSettings: strictSettings),
        .testTarget(
            name: "StrataMetricsTests",
            dependencies: [
                "StrataMetrics", "StrataTestSupport", .product(name: "MetricsTestKit", package: "swift-metrics"),
            ],
            swiftSettings: strictSettings),
        // Names of swift-nio, swift-log and applications, which Strata must not export (the
        // public-surface test imports it beside RealmSwift).
        .target(name: "EcosystemNames", path: "Tests/EcosystemNames", swiftSettings: strictSettings),
        .testTarget(
            name: "RealmSwiftCompatibilityTests", dependencies: ["RealmSwift", "EcosystemNames"], swiftSettings: strictSettings),
        .testTarget(
            name: "StrataNIOTests",
            dependencies: ["StrataNIO", "StrataTestSupport", .product(name: "NIOPosix", package: "swift-nio")],
            swiftSettings: strictSettings),
        .testTarget(name: "StrataNotifyTests", dependencies: ["StrataNotify", "StrataTestSupport"], swiftSettings: strictSettings),
        .testTarget(
            name: "StrataEventLoopTests", dependencies: ["StrataEventLoop", "CLibUV", "StrataTestSupport"],
            swiftSettings: strictSettings),
        // libFuzzer on the commit log, checkpoint and changeset decoders (STRATA_FUZZ_DECODER picks one).
        .executableTarget(
            name: "strata-storage-fuzz", dependencies: ["StrataEngine", "StrataStorage", "StrataFuzzSupport"], path: "Sources/StrataStorageFuzz",
            swiftSettings: [.swiftLanguageMode(.v6), .unsafeFlags(["-parse-as-library"])]),
        .target(name: "StrataFuzzSupport", swiftSettings: strictSettings),
        .executableTarget(name: "strata-query-fuzz", dependencies: ["StrataQuery", "StrataFuzzSupport"], path: "Sources/StrataQueryFuzz", swiftSettings: [.swiftLanguageMode(.v6), .unsafeFlags(["-parse-as-library"])]),
    ]
)
