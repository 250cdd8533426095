// swift-tools-version:6.2
import PackageDescription

/// An example service: a Hummingbird 2 application whose REST endpoints read and write a Strata
/// Realm and whose WebSocket streams a live query's change sets. A package of its own, so that
/// Strata's users never resolve Hummingbird.
let strictSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .treatAllWarnings(as: .error),
]

let package = Package(
    name: "LiveQuery",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "live-query-server", targets: ["LiveQueryServer"]),
    ],
    dependencies: [
        .package(name: "Strata", path: "../.."),
        // Without the default traits: the example needs neither swift-configuration nor full Foundation's
        // URL-encoded forms, and skipping them shortens the build.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
    ],
    targets: [
        // The application: model, store, routes and the live-query feed (a library, so tests drive it).
        .target(
            name: "LiveQuery",
            dependencies: [
                .product(name: "Strata", package: "Strata"),
                .product(name: "StrataNIO", package: "Strata"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(name: "LiveQueryServer", dependencies: ["LiveQuery"], swiftSettings: strictSettings),
        .testTarget(
            name: "LiveQueryTests",
            dependencies: [
                "LiveQuery",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HummingbirdWSTesting", package: "hummingbird-websocket"),
            ],
            swiftSettings: strictSettings
        ),
    ]
)
