// swift-tools-version:6.2
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "pushgate",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "pushgate", targets: ["pushgate"])
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
    ],
    targets: [
        // Values, rules and ports. Imports no transport: no NIO, no HTTP, no SQL.
        .target(
            name: "PushgateCore",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // The HTTP functions (registerSubscription, triggerReplyFinished) and fan-out,
        // written against the ports only.
        .target(
            name: "PushgateFunctions",
            dependencies: [
                "PushgateCore",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // The document store over SQLite (GRDB, WAL mode).
        .target(
            name: "PushgateSQLite",
            dependencies: [
                "PushgateCore",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings
        ),
        // Hummingbird routes, error-to-HTTP mapping, and the one place where everything is wired.
        .target(
            name: "PushgateServer",
            dependencies: [
                "PushgateCore",
                "PushgateFunctions",
                "PushgateSQLite",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // Test doubles shared by the tests: an in-memory store, a scripted provider.
        .target(
            name: "PushgateTesting",
            dependencies: ["PushgateCore"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "pushgate",
            dependencies: [
                "PushgateCore",
                "PushgateServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PushgateCoreTests",
            dependencies: ["PushgateCore"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PushgateFunctionsTests",
            dependencies: ["PushgateCore", "PushgateFunctions", "PushgateSQLite", "PushgateTesting"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PushgateSQLiteTests",
            dependencies: [
                "PushgateCore",
                "PushgateSQLite",
                "PushgateTesting",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PushgateServerTests",
            dependencies: [
                "PushgateCore",
                "PushgateServer",
                "PushgateSQLite",
                "PushgateTesting",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PushgateEndToEndTests",
            dependencies: [
                "PushgateCore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
