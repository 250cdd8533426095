// swift-tools-version:6.2
import PackageDescription

/// Strata's layers (see ../shared/DESIGN.md), bottom to top:
/// StrataSupport, StrataValues → StrataStorage → StrataEngine → StrataQuery → StrataNotify (with StrataEventLoop) → Strata.
/// Arrows point down only; the public product is the `Strata` library.
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
        .executable(name: "strata-example", targets: ["StrataExample"]),
        .executable(name: "strata-eventd", targets: ["strata-eventd"]),
        .executable(name: "strata-eventgen", targets: ["strata-eventgen"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
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
        .executableTarget(
            name: "StrataExample",
            dependencies: ["Strata"],
            path: "Demo/StrataExample",
            swiftSettings: strictSettings
        ),
        // The demo daemon (Demo/EventDaemon): its logic as a library the tests drive, and the
        // executables around it.
        .target(
            name: "StrataEventd",
            dependencies: [
                "Strata", "StrataSupport", "StrataQuery", .product(name: "Logging", package: "swift-log"),
                .product(name: "Yams", package: "Yams"),
            ],
            path: "Demo/EventDaemon/Core",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "strata-eventd",
            dependencies: ["StrataEventd", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Demo/EventDaemon/Main",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "strata-eventgen",
            dependencies: ["StrataEventd", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Demo/EventGen",
            swiftSettings: strictSettings
        ),
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
            name: "StrataEventdTests", dependencies: ["StrataEventd", "StrataStorage", "StrataTestSupport", "strata-eventd"],
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
        // libFuzzer targets for the daemon's request parser and configuration loader (seed
        // corpora: the dot-files in each Corpus folder).
        .executableTarget(
            name: "strata-eventd-request-fuzz", dependencies: ["Strata", "StrataEventd", "StrataFuzzSupport"], path: "Demo/EventDaemon/Fuzz/RequestParser",
            swiftSettings: [.swiftLanguageMode(.v6), .unsafeFlags(["-parse-as-library"])]),
        .executableTarget(
            name: "strata-eventd-config-fuzz",
            dependencies: ["StrataEventd", "StrataFuzzSupport", .product(name: "Yams", package: "Yams")],
            path: "Demo/EventDaemon/Fuzz/Config",
            swiftSettings: [.swiftLanguageMode(.v6), .unsafeFlags(["-parse-as-library"])]),
    ]
)
