// swift-tools-version:6.2
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "pushgate",
    platforms: [.macOS(.v14), .iOS(.v16)],
    products: [
        .executable(name: "pushgate", targets: ["pushgate"]),
        // What the libFuzzer targets of Fuzz/ (a package of their own, built with
        // --sanitize=fuzzer) check; the corpus replays through it in the tests too.
        .library(name: "PushgateFuzzing", targets: ["PushgateFuzzing"]),
        // For apps: the gateway's functions, subscriptions kept and replayed, pushes
        // read and routed. Foundation and hashing only.
        .library(name: "PushgateClient", targets: ["PushgateClient", "PushgateLiveActivity"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-async-algorithms.git", from: "1.1.4"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
    ],
    targets: [
        // RFC 8291 sealed records and the keys they are sealed for, base64url: the
        // gateway seals (Web Push, sealed APNs and FCM pushes), the app opens. As the
        // client: Foundation, CryptoKit on Apple's platforms and swift-crypto elsewhere.
        .target(
            name: "PushgateSealing",
            dependencies: [
                .product(
                    name: "Crypto", package: "swift-crypto",
                    condition: .when(platforms: [.linux, .android, .windows, .openbsd, .wasi]))
            ],
            path: "Sources/Core/Sealing",
            swiftSettings: swiftSettings
        ),
        // An agent's Live Activity as the gateway sends it and the app (and its widget
        // extension, which needs nothing else) decodes it: the attributes and the
        // content state (issue 64). Foundation, and ActivityKit where there is one.
        .target(
            name: "PushgateLiveActivity",
            path: "Sources/Core/LiveActivity",
            swiftSettings: swiftSettings
        ),
        // The app's half (issue 46): Foundation, CryptoKit on Apple's platforms and
        // swift-crypto elsewhere; of the gateway's own targets only the sealing one.
        .target(
            name: "PushgateClient",
            dependencies: [
                "PushgateSealing",
                "PushgateLiveActivity",
                .product(
                    name: "Crypto", package: "swift-crypto",
                    condition: .when(platforms: [.linux, .android, .windows, .openbsd, .wasi])),
            ],
            path: "Sources/Client",
            swiftSettings: swiftSettings
        ),
        // Values, rules and ports. Imports no transport: no NIO, no HTTP, no SQL.
        .target(
            name: "PushgateCore",
            dependencies: [
                "PushgateSealing",
                "PushgateLiveActivity",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/Core/Kernel",
            swiftSettings: swiftSettings
        ),
        // The dump format (`pushgate export`/`import`, the backup's lines): its records,
        // the layout's rules each is checked against, the importer, the Firestore
        // reader, and the port the stores carry it through (StoreTransfer).
        .target(
            name: "PushgateDumpFormat",
            dependencies: [
                "PushgateCore",
                "PushgateLiveActivity",
                "PushgateSealing",
            ],
            path: "Sources/Core/DumpFormat",
            swiftSettings: swiftSettings
        ),
        // The delivery engine, written against the ports only: the worker, the runner
        // (chunk sends, expansion pages, outcomes written back), the lease fence,
        // routing over the push-service table, the policy, housekeeping.
        .target(
            name: "PushgateDelivery",
            dependencies: [
                "PushgateProviderKit",
                "PushgateCore",
                .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Sources/Gateway/DeliveryEngine",
            swiftSettings: swiftSettings
        ),
        // Coding agents' hook events as they send them (Claude Code's hooks, Codex's
        // notify) and the calls they become, the words of their answers (HookOutput,
        // Resolution): what the agent's side and the gateway's HTTP hook endpoint share.
        .target(
            name: "PushgateAgentHooks",
            dependencies: ["PushgateCore"],
            path: "Sources/Agent/AgentHooks",
            swiftSettings: swiftSettings
        ),
        // The agent's side (issue 82): the gateway as an agent reaches it, typed; the one
        // wait for a person and the check of what they said against the phones paired on
        // this machine (pins, pairing); the permission request, the Stop reply and
        // ask_user built on them. The hook, pushgate mcp and pushgate pair are thin over it.
        .target(
            name: "PushgateAgentSide",
            dependencies: [
                "PushgateAgentHooks",
                "PushgateClient",
                "PushgateCore",
                "PushgateSealing",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Sources/Agent/AgentSide",
            swiftSettings: swiftSettings
        ),
        // Debian's libqrencode (libqrencode-dev, which scripts/install-deps installs; its
        // header and library where the system keeps them): `pushgate pair` draws its
        // link's QR code.
        .systemLibrary(
            name: "CQRencode",
            path: "Sources/Agent/CQRencode"
        ),
        // The HTTP functions (registerSubscription, triggerReplyFinished, …): read,
        // plan, submit to delivery, answer.
        .target(
            name: "PushgateFunctions",
            dependencies: [
                "PushgateAgentHooks",
                "PushgateCore",
                "PushgateLiveActivity",
                "PushgateSealing",
                "PushgateDelivery",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Sources/Gateway/Functions",
            swiftSettings: swiftSettings
        ),
        // The properties the fuzzers check, one entry per fuzz target: request
        // decoding and validation, the reply preview, APNs and FCM payloads, what an
        // HTTP/2 server sends the push client (replayed on NIOEmbedded's channel: no
        // production target links it).
        .target(
            name: "PushgateFuzzing",
            dependencies: [
                "PushgateAgentHooks",
                "PushgateAgentSide",
                "PushgateProviderKit",
                "PushgateSealing",
                "PushgateClient", "PushgateCore", "PushgateDumpFormat", "PushgateFunctions", "PushgateHTTP2",
                "PushgateInstalledServices",
                "PushgateWebPush",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ],
            path: "Sources/Support/Fuzzing",
            swiftSettings: swiftSettings
        ),
        // What the three outboxes share: their rows, and what an enqueue writes given
        // what its transaction read (the SQL ones also the rows' JSON text and the
        // transfer statements).
        .target(
            name: "PushgateOutboxRows",
            dependencies: ["PushgateCore", "PushgateDumpFormat"],
            path: "Sources/Stores/OutboxRows",
            swiftSettings: swiftSettings
        ),
        // The document store and the outbox in memory: the third store of the
        // conformance suites, and the functions' tests' store.
        .target(
            name: "PushgateMemory",
            dependencies: ["PushgateCore", "PushgateOutboxRows"],
            path: "Sources/Stores/Memory",
            swiftSettings: swiftSettings
        ),
        // The document store and the outbox over SQLite (GRDB, WAL mode).
        .target(
            name: "PushgateSQLite",
            dependencies: [
                "PushgateCore", "PushgateDumpFormat",
                "PushgateOutboxRows",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            path: "Sources/Stores/SQLite",
            swiftSettings: swiftSettings,
            plugins: ["EmbedFiles"]
        ),
        // The document store and the outbox over PostgreSQL (postgres-nio), for several
        // gateway processes on one database.
        .target(
            name: "PushgatePostgres",
            dependencies: [
                "PushgateCore", "PushgateDumpFormat",
                "PushgateOutboxRows",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Sources/Stores/PostgreSQL",
            swiftSettings: swiftSettings,
            plugins: ["EmbedFiles"]
        ),
        // The provider machinery every push service is written against: the provider
        // port (PushProvider), a service's response classified (PushVerdict), a chunk's send
        // rounds, health, the routing table's leaves, the plug-in contract (settings,
        // per-app rules, doctor checks) and the alert payload APNs and FCM share.
        .target(
            name: "PushgateProviderKit",
            dependencies: [
                "PushgateCore",
                "PushgateSealing",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/PushServices/ProviderKit",
            swiftSettings: swiftSettings
        ),
        // The multiplexed HTTP/2 client both push services are reached with: a pool of
        // connections, one stream per request, its own framing (NIOHPACK decodes the
        // responses' headers it does not read itself), GOAWAY, deadlines. Names no
        // provider. Its framing is `package`: the fuzzers replay a server's bytes to it.
        .target(
            name: "PushgateHTTP2",
            dependencies: [
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            path: "Sources/PushServices/HTTP2",
            swiftSettings: swiftSettings
        ),
        // Delivery to Apple's APNs on the HTTP/2 transport: the JWT, headers, its responses
        // read as verdicts.
        .target(
            name: "PushgateAPNs",
            dependencies: [
                "PushgateProviderKit",
                "PushgateSealing",
                "PushgateCore",
                "PushgateHTTP2",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Sources/PushServices/APNs",
            swiftSettings: swiftSettings
        ),
        // Delivery through FCM HTTP v1 on the HTTP/2 transport: the service account's
        // OAuth2 access token, the message, its responses read as verdicts.
        .target(
            name: "PushgateFCM",
            dependencies: [
                "PushgateProviderKit",
                "PushgateSealing",
                "PushgateCore",
                "PushgateHTTP2",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Sources/PushServices/FCM",
            swiftSettings: swiftSettings
        ),
        // Delivery to browsers' push services and UnifiedPush distributors (RFC 8030) on
        // the HTTP/2 transport: the subscription and its endpoint's rules, RFC 8291
        // encryption, VAPID, its responses read as verdicts.
        .target(
            name: "PushgateWebPush",
            dependencies: [
                "PushgateProviderKit",
                "PushgateSealing",
                "PushgateCore",
                "PushgateHTTP2",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Sources/PushServices/WebPush",
            swiftSettings: swiftSettings
        ),
        // The push services this build installs, one line each: their address formats
        // (what a registration, the device record and the dump format accept).
        .target(
            name: "PushgateInstalledServices",
            dependencies: [
                "PushgateProviderKit", "PushgateAPNs", "PushgateCore", "PushgateFCM", "PushgateWebPush",
            ],
            path: "Sources/PushServices/Installed",
            swiftSettings: swiftSettings
        ),
        // Hummingbird routes, error-to-HTTP mapping, and the one place where everything is wired.
        .target(
            name: "PushgateServer",
            dependencies: [
                "PushgateAgentHooks",
                "PushgateProviderKit",
                "PushgateCore", "PushgateDumpFormat",
                "PushgateDelivery",
                "PushgateFunctions",
                "PushgatePostgres",
                "PushgateSQLite",
                "PushgateInstalledServices",
                "PushgateWeb",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Yams", package: "Yams"),
            ],
            path: "Sources/App/Server",
            swiftSettings: swiftSettings
        ),
        // The web pages of web/ (the gateway's console, the emulators' phone), embedded
        // in the executable and served with a strict Content-Security-Policy.
        .target(
            name: "PushgateWeb",
            dependencies: [
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Sources/App/Web",
            swiftSettings: swiftSettings,
            plugins: ["EmbedFiles"]
        ),
        // The APNs and FCM emulators (HTTP/2 over TLS): `pushgate apns-emulator` and
        // `pushgate fcm-emulator` run them, the tests start them in process.
        .target(
            name: "PushgateEmulators",
            dependencies: [
                "PushgateClient",
                "PushgateSealing",
                "PushgateCore",
                "PushgateWeb",
                "PushgateWebPush",
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            path: "Sources/Support/Emulators",
            swiftSettings: swiftSettings
        ),
        // Test doubles shared by the tests, never linked into the executable: an
        // in-memory store, a scripted provider, a test clock, scratch PostgreSQL
        // databases, emulators running in process.
        .target(
            name: "PushgateTesting",
            dependencies: [
                "PushgateProviderKit",
                "PushgateCore",
                "PushgateDelivery",
                "PushgateEmulators",
                "PushgateFunctions",
                "PushgatePostgres",
                "PushgateSQLite",
                "PushgateInstalledServices",
                "PushgateWebPush",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Sources/Support/Testing",
            swiftSettings: swiftSettings
        ),
        // The migrations in store/ embedded in the two stores, and the pages in web/ in
        // PushgateWeb, at build time: the files stay the one source.
        .executableTarget(
            name: "PushgateFileEmbedder",
            path: "Sources/Support/FileEmbedder",
            swiftSettings: swiftSettings
        ),
        .plugin(
            name: "EmbedFiles",
            capability: .buildTool(),
            dependencies: ["PushgateFileEmbedder"]
        ),
        .executableTarget(
            name: "pushgate",
            dependencies: [
                "CQRencode",
                "PushgateAgentHooks",
                "PushgateAgentSide",
                "PushgateAPNs",
                "PushgateClient",
                "PushgateCore",
                "PushgateDumpFormat",
                "PushgateProviderKit",
                "PushgateDelivery",
                "PushgateEmulators",
                "PushgateFCM",
                "PushgateFunctions",
                "PushgateHTTP2",
                "PushgatePostgres",
                "PushgateSQLite",
                "PushgateSealing",
                "PushgateInstalledServices",
                "PushgateServer",
                "PushgateWebPush",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            path: "Sources/App/Command",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PushgateClientTests",
            dependencies: [
                "PushgateClient",
                "PushgateLiveActivity",
                "PushgateSealing",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            path: "Tests/Client",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PushgateSealingTests",
            dependencies: [
                "PushgateSealing",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Tests/Core/Sealing",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PushgateCoreTests",
            dependencies: [
                "PushgateProviderKit",
                "PushgateAPNs", "PushgateCore", "PushgateDumpFormat", "PushgateFCM", "PushgateInstalledServices",
                "PushgateWebPush",
                "PushgateLiveActivity",
                "PushgateSealing",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Tests/Core/Kernel",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PushgateFunctionsTests",
            dependencies: [
                "PushgateProviderKit",
                "PushgateLiveActivity",
                "PushgateAPNs", "PushgateCore", "PushgateDelivery", "PushgateFCM", "PushgateFunctions",
                "PushgateFuzzing", "PushgateMemory", "PushgateSQLite", "PushgateServer", "PushgateInstalledServices",
                "PushgateSealing", "PushgateTesting",
                .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            path: "Tests/Gateway/Functions",
            swiftSettings: swiftSettings
        ),
        // The delivery engine's own: routing, the fan-out's chunks, the retry schedule,
        // pruning; what goes through the functions is the functions' tests'.
        .testTarget(
            name: "PushgateAgentHooksTests",
            dependencies: ["PushgateAgentHooks", "PushgateCore"],
            path: "Tests/Agent/AgentHooks",
            swiftSettings: swiftSettings
        ),
        // The agent's side against gateways in process: an honest one, lying ones, one
        // that answers at once, one that never answers.
        .testTarget(
            name: "PushgateAgentSideTests",
            dependencies: [
                "PushgateAgentHooks", "PushgateAgentSide", "PushgateCore", "PushgateSealing",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            path: "Tests/Agent/AgentSide",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PushgateDeliveryTests",
            dependencies: [
                "PushgateProviderKit",
                "PushgateAPNs", "PushgateCore", "PushgateDelivery", "PushgateFCM", "PushgateInstalledServices",
                "PushgateTesting",
                .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            path: "Tests/Gateway/DeliveryEngine",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PushgateStoreTests",
            dependencies: [
                "PushgateProviderKit",
                "PushgateAPNs",
                "PushgateCore", "PushgateDumpFormat",
                "PushgateDelivery",
                "PushgateFCM",
                "PushgateFunctions",
                "PushgateMemory",
                "PushgateOutboxRows",
                "PushgatePostgres",
                "PushgateSQLite",
                "PushgateInstalledServices",
                "PushgateTesting",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            path: "Tests/Stores",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PushgateWebPushTests",
            dependencies: [
                "PushgateProviderKit",
                "PushgateSealing",
                "PushgateCore",
                "PushgateDelivery",
                "PushgateEmulators",
                "PushgateFunctions",
                "PushgateHTTP2",
                "PushgateServer",
                "PushgateSQLite",
                "PushgateTesting",
                "PushgateWebPush",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            path: "Tests/PushServices/WebPush",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PushgateProviderKitTests",
            dependencies: [
                "PushgateAPNs", "PushgateCore", "PushgateFCM", "PushgateFunctions", "PushgateProviderKit",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/PushServices/ProviderKit",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PushgateHTTP2Tests",
            dependencies: [
                "PushgateHTTP2",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
            ],
            path: "Tests/PushServices/HTTP2",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PushgateAPNsTests",
            dependencies: [
                "PushgateProviderKit",
                "PushgateSealing",
                "PushgateLiveActivity",
                "PushgateAPNs",
                "PushgateCore",
                "PushgateDelivery",
                "PushgateEmulators",
                "PushgateFCM",
                "PushgateFunctions",
                "PushgateHTTP2",
                "PushgateSQLite",
                "PushgateServer",
                "PushgateInstalledServices",
                "PushgateTesting",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Tests/PushServices/APNs",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PushgateFCMTests",
            dependencies: [
                "PushgateProviderKit",
                "PushgateSealing",
                "PushgateCore",
                "PushgateDelivery",
                "PushgateEmulators",
                "PushgateFCM",
                "PushgateFunctions",
                "PushgateHTTP2",
                "PushgateSQLite",
                "PushgateServer",
                "PushgateTesting",
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Tests/PushServices/FCM",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PushgateServerTests",
            dependencies: [
                "PushgateProviderKit",
                "PushgateAPNs",
                "PushgateCore",
                "PushgateDelivery",
                "PushgateFCM",
                "PushgateFunctions",
                "PushgateMemory",
                "PushgatePostgres",
                "PushgateSQLite",
                "PushgateServer",
                "PushgateTesting",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Yams", package: "Yams"),
            ],
            path: "Tests/App",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PushgateEndToEndTests",
            dependencies: [
                "PushgateAgentHooks",
                "PushgateAPNs",
                "PushgateClient",
                "PushgateCore", "PushgateDumpFormat",
                "PushgatePostgres",
                "PushgateLiveActivity",
                "PushgateSQLite",
                "PushgateSealing",
                "PushgateTesting",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Tests/EndToEnd",
            swiftSettings: swiftSettings
        ),
    ]
)
