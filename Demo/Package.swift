// swift-tools-version:6.2
import PackageDescription

/// The programs built on Strata: `strata` (the tool for store files, Demo/StrataTool),
/// `strata-eventd` (the demo event daemon, Demo/EventDaemon), its load generator
/// `strata-eventgen`, the smallest example program `strata-example`, their tests and the
/// daemon's libFuzzer targets.
///
/// A package of its own, depending on the library package in `..`, so that a package that depends
/// on the `Strata` or `RealmSwift` product never resolves nor builds what only these programs need
/// (swift-argument-parser, Yams). From the repository root:
/// `swift run --package-path Demo strata-eventd --demo`.
let strictSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .treatAllWarnings(as: .error),
]

/// libFuzzer targets: `-parse-as-library`, as their entry point is libFuzzer's (or, without
/// `--sanitize=fuzzer`, the replay mode's).
let fuzzSettings: [SwiftSetting] = [.swiftLanguageMode(.v6), .unsafeFlags(["-parse-as-library"])]

let package = Package(
    name: "StrataDemo",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "strata", targets: ["strata"]),
        .executable(name: "strata-example", targets: ["StrataExample"]),
        .executable(name: "strata-eventd", targets: ["strata-eventd"]),
        .executable(name: "strata-eventgen", targets: ["strata-eventgen"]),
    ],
    dependencies: [
        .package(name: "Strata", path: ".."),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
    ],
    targets: [
        .executableTarget(
            name: "StrataExample",
            dependencies: [.product(name: "Strata", package: "Strata")],
            path: "StrataExample",
            swiftSettings: strictSettings
        ),
        // Terminal output the programs share: width, tables that fit it.
        .target(name: "StrataTerminal", path: "Terminal", swiftSettings: strictSettings),
        // The tool for store files (no model classes: it reads the schema from the file).
        .executableTarget(
            name: "strata",
            dependencies: ["StrataTerminal", .product(name: "Strata", package: "Strata"),
                           .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "StrataTool",
            exclude: ["README.md"],
            swiftSettings: strictSettings
        ),
        // The demo daemon (EventDaemon/): its logic as a library the tests drive, and the
        // executables around it.
        .target(
            name: "StrataEventd",
            dependencies: [
                .product(name: "Strata", package: "Strata"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Yams", package: "Yams"),
            ],
            path: "EventDaemon/Core",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "strata-eventd",
            dependencies: ["StrataEventd", "StrataTerminal",
                           .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "EventDaemon/Main",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "strata-eventgen",
            dependencies: ["StrataEventd", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "EventGen",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StrataEventdTests",
            dependencies: [
                "StrataEventd", "strata-eventd",
                .product(name: "Strata", package: "Strata"),
                .product(name: "StrataTestSupport", package: "Strata"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StrataToolTests",
            dependencies: [
                "strata", "strata-eventd",
                .product(name: "Strata", package: "Strata"),
                .product(name: "StrataTestSupport", package: "Strata"),
            ],
            swiftSettings: strictSettings
        ),
        // libFuzzer targets for the daemon's request parser and configuration loader (seed
        // corpora: the dot-files in each Corpus folder).
        .executableTarget(
            name: "strata-eventd-request-fuzz",
            dependencies: [
                "StrataEventd", .product(name: "Strata", package: "Strata"),
                .product(name: "StrataFuzzSupport", package: "Strata"),
            ],
            path: "EventDaemon/Fuzz/RequestParser",
            exclude: ["Corpus"],
            swiftSettings: fuzzSettings
        ),
        .executableTarget(
            name: "strata-eventd-config-fuzz",
            dependencies: [
                "StrataEventd", .product(name: "StrataFuzzSupport", package: "Strata"),
                .product(name: "Yams", package: "Yams"),
            ],
            path: "EventDaemon/Fuzz/Config",
            exclude: ["Corpus"],
            swiftSettings: fuzzSettings
        ),
    ]
)
