// swift-tools-version:6.2
// The libFuzzer targets, a package of their own so that the gateway's build never
// sees their entry points: `scripts/fuzz` builds them with --sanitize=fuzzer and
// runs each for a bounded time from its committed corpus (Corpus/<target>/).
import Foundation
import PackageDescription

// The gateway's package, by the identity SwiftPM gives a path: its directory's name.
let gateway = URL(fileURLWithPath: Context.packageDirectory).deletingLastPathComponent()

let package = Package(
    name: "PushgateFuzz",
    platforms: [.macOS(.v14)],
    dependencies: [.package(path: gateway.path)],
    targets: [
        "FuzzRequests", "FuzzPreview", "FuzzPayloads", "FuzzJSON", "FuzzDumps", "FuzzTimes", "FuzzHooks", "FuzzFrames",
        "FuzzEnvFiles", "FuzzWebPush", "FuzzDecisions",
    ].map {
        name in
        .executableTarget(
            name: name,
            dependencies: [.product(name: "PushgateFuzzing", package: gateway.lastPathComponent.lowercased())]
        )
    }
)
