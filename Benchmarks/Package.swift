// swift-tools-version:6.2
import PackageDescription

// The benchmark harness is its own package so that users of Strata never build its
// dependencies (GRDB). Run: `cd Benchmarks && swift run -c release strata-bench --quick`.
let package = Package(
    name: "StrataBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Strata", path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        // Counts heap allocations for the allocation figures (the executable interposes malloc).
        .target(name: "MallocCounter", path: "Sources/MallocCounter"),
        .executableTarget(
            name: "strata-bench",
            dependencies: [
                "MallocCounter",
                .product(name: "Strata", package: "Strata"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Sources/StrataBench",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
