// swift-tools-version:6.2
// The floor of a Web Push's CPU for bench/webpush.sh: what RFC 8291 encryption
// costs with swift-crypto alone, timed apart from the gateway.
import PackageDescription

let package = Package(
    name: "webpush-floor",
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0")
    ],
    targets: [
        .executableTarget(
            name: "WebPushFloor",
            dependencies: [.product(name: "Crypto", package: "swift-crypto")]
        )
    ]
)
