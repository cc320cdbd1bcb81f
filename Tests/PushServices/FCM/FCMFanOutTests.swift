import Foundation
import Logging
import PushgateCore
import PushgateDelivery
import PushgateEmulators
import PushgateFCM
import PushgateFunctions
import PushgateHTTP2
import PushgateProviderKit
import PushgateSQLite
import PushgateServer
import PushgateTesting
import Testing

/// `triggerReplyFinished` over a real SQLite store and outbox, delivered by the real
/// FCM provider over TLS and HTTP/2 to the in-process FCM emulator, which checks
/// every assertion, access token and message as Google does.
@Suite("Fan-out through FCM", .serialized)
struct FCMFanOutTests {
    static func token(_ n: Int, prefix: String = "live") -> String {
        "\(prefix)-\(String(format: "%05d", n)):APA91b" + String(repeating: "x", count: 120)
    }

    /// A provider sending to `emulator`, with its service account unless `account` (a
    /// service account's JSON) is given.
    static func provider(
        _ emulator: RunningFCMEmulator, connections: Int = 2, account json: Data? = nil,
        requestTimeout: Duration = .seconds(120)
    ) throws -> FCMPushProvider {
        var logger = Logger(label: "fcm-test")
        logger.logLevel = .critical
        let account =
            try json.map { try FCMServiceAccount(json: $0, source: "test.json") }
            ?? FCMServiceAccount(contentsOf: emulator.credentialsFile)
        return try FCMPushProvider(
            configuration: FCMConfiguration(
                serviceAccount: account, endpoint: .init(url: emulator.url),
                extraTrustedCAFile: emulator.certificateAuthorityFile, connections: connections,
                // Roomy by default: with the whole suite on two cores (and other suites'
                // process helpers holding the test process's threads) a one-connection
                // fan-out's last sends can wait in the queue for a minute. The deadline
                // itself is tested on an embedded channel and in HTTP2StreamStateTests.
                requestTimeout: requestTimeout),
            logger: logger)
    }

    static func stack(
        devices count: Int, dead: Set<Int> = [], provider: FCMPushProvider, fanOut: FanOut = FanOut()
    ) async throws -> DeliveryStack {
        try await DeliveryStack(
            devices: count,
            provider: PushRoutingTable.services([.fcm: provider]),
            fanOut: fanOut
        ) { n in .fcm(token(n, prefix: dead.contains(n) ? "unregistered" : "live")) }
    }

    @Test("1,201 devices on one connection, 5 unregistered: 1,196 delivered, 5 removed, one access token")
    func fanOut() async throws {
        let dead: Set = [0, 17, 500, 999, 1200]
        let emulator = try await RunningFCMEmulator.start()
        // One connection: 1,201 answers' bodies are well over the 64 KiB window a
        // connection starts with, so this also proves the window is replenished.
        let provider = try Self.provider(emulator, connections: 1)
        let stack = try await Self.stack(devices: 1201, dead: dead, provider: provider)
        defer { stack.directory.remove() }

        let answer = try await stack.trigger()
        await provider.shutdown()
        await emulator.stop()

        #expect(answer.delivery == "fcm")
        #expect(
            answer.deviceCount == 1201 && answer.successCount == 1196 && answer.removedCount == 5,
            "\(answer.errors ?? [:])")
        #expect(answer.pendingCount == 0 && answer.configurationError == nil)
        #expect(answer.errors == ["UNREGISTERED": 5] && answer.responsesOmitted == true, "too many to list")
        let failed = try await stack.outbox.entries(in: [.failed], limit: 100)
        #expect(Set(failed.map(\.installationID)) == Set(dead.map { String(format: "device-%05d", $0) }))
        #expect(failed.allSatisfy { $0.lastReason == "UNREGISTERED" && $0.token.kind == .fcm })
        #expect(try await stack.devicesLeft() == 1196)

        let inbox = emulator.emulator.inbox.entries
        #expect(inbox.count == 1201, "one send per device, no duplicates")
        #expect(Set(inbox.map(\.token)).count == 1201)
        #expect(emulator.emulator.accessTokensIssued == 1, "one token shared by every send")
        let agentKey = SHA256Hex.digest(of: DeliveryStack.cwd)
        for entry in inbox {
            #expect(entry.status == (entry.token.hasPrefix("unregistered") ? 404 : 200))
            let message = entry.message?.objectValue
            #expect(message?["apns"]?.objectValue?["headers"]?.objectValue?["apns-collapse-id"] == .string(agentKey))
            #expect(message?["android"]?.objectValue?["collapse_key"] == .string(agentKey))
            #expect(message?["data"]?.objectValue?["cwd"] == .string(DeliveryStack.cwd))
            #expect(message?["notification"] == ["title": "my-agent", "body": "Done."])
        }
    }

    @Test("a revoked access token: the 401 renews it once and the sends go through")
    func revokedToken() async throws {
        let emulator = try await RunningFCMEmulator.start()
        let provider = try Self.provider(emulator)
        let stack = try await Self.stack(devices: 50, provider: provider)
        defer { stack.directory.remove() }
        #expect(try await stack.trigger().successCount == 50)
        emulator.emulator.revokeAccessTokens()
        let answer = try await stack.trigger()
        await provider.shutdown()
        await emulator.stop()
        #expect(answer.successCount == 50 && answer.pendingCount == 0)
        #expect(emulator.emulator.accessTokensIssued == 2)
        #expect(emulator.emulator.inbox.entries.filter { $0.status == 401 }.count == 50)
    }

    @Test("THIRD_PARTY_AUTH_ERROR stops the trigger with a configuration error, kept for retry, reported in health")
    func thirdPartyAuthError() async throws {
        let emulator = try await RunningFCMEmulator.start { $0.thirdPartyAuthError = true }
        let provider = try Self.provider(emulator)
        let stack = try await Self.stack(
            devices: 1000, provider: provider, fanOut: FanOut(chunkSize: 100, maxConcurrentChunks: 2))
        defer { stack.directory.remove() }

        let answer = try await stack.trigger()
        await provider.shutdown()
        await emulator.stop()

        #expect(answer.configurationError == "THIRD_PARTY_AUTH_ERROR")
        #expect(answer.successCount == 0 && answer.removedCount == 0)
        #expect(answer.pendingCount == 1000, "kept for when the configuration is fixed")
        #expect(emulator.emulator.inbox.count == 200, "the first two chunks were in flight; the rest never sent")
        guard case .degraded(let service, let reason, _) = provider.health else {
            Issue.record("health is \(provider.health)")
            return
        }
        #expect(service == "fcm" && reason == "THIRD_PARTY_AUTH_ERROR")
    }

    @Test("a key the token endpoint does not know is a configuration error; nothing is sent")
    func refusedServiceAccount() async throws {
        // The emulator knows another account: the assertion's signature does not verify.
        let emulator = try await RunningFCMEmulator.start()
        let stranger = try await RunningFCMEmulator.start(account: .otherTestAccount)
        let provider = try Self.provider(
            emulator, account: try stranger.account.json(tokenURI: emulator.url + "/token"))
        let stack = try await Self.stack(devices: 3, provider: provider)
        defer { stack.directory.remove() }
        let answer = try await stack.trigger()
        await provider.shutdown()
        await emulator.stop()
        await stranger.stop()
        #expect(answer.configurationError == "OAuthRefused")
        #expect(answer.pendingCount == 3)
        #expect(emulator.emulator.inbox.count == 0)
        #expect(provider.health != .ok)
    }

    @Test("a token endpoint that does not answer: the pushes wait for a retry, and health says FCM does not answer")
    func tokenEndpointUnreachable() async throws {
        let emulator = try await RunningFCMEmulator.start()
        // Nothing listens on port 1: every token request fails to connect (and is
        // given up at the request deadline).
        let provider = try Self.provider(
            emulator, account: try emulator.account.json(tokenURI: "https://127.0.0.1:1/token"),
            requestTimeout: .seconds(5))
        let stack = try await Self.stack(devices: 3, provider: provider)
        defer { stack.directory.remove() }
        let answer = try await stack.trigger()
        await provider.shutdown()
        await emulator.stop()
        #expect(answer.pendingCount == 3 && answer.configurationError == nil, "kept for a retry")
        #expect(emulator.emulator.inbox.count == 0)
        guard case .unanswered(let service, let reason, _) = provider.health else {
            Issue.record("health is \(provider.health)")
            return
        }
        #expect(service == "fcm" && reason == "OAuthUnavailable")
    }

    @Test("503s with Retry-After go back to the outbox and are delivered, each never sooner than asked")
    func serviceUnavailable() async throws {
        let emulator = try await RunningFCMEmulator.start {
            $0.unavailableBurst = 100
            $0.retryAfterSeconds = 1
        }
        let provider = try Self.provider(emulator)
        let stack = try await Self.stack(devices: 100, provider: provider)
        defer { stack.directory.remove() }

        let answer = try await stack.trigger()
        #expect(answer.pendingCount == 100)
        #expect(answer.responses.allSatisfy { $0.error?.reason == "UNAVAILABLE" && $0.pending == true })
        try await stack.retryUntilSettled()
        await provider.shutdown()
        await emulator.stop()

        let inbox = emulator.emulator.inbox.entries
        #expect(inbox.filter { $0.status == 200 }.count == 100)
        let refusedAt = Dictionary(inbox.filter { $0.status == 503 }.map { ($0.token, $0.receivedAt) }) { $1 }
        for entry in inbox where entry.status == 200 {
            let refused = try #require(refusedAt[entry.token])
            #expect(entry.receivedAt.timeIntervalSince(refused) >= 1, "Retry-After: 1 is honoured")
        }
        #expect(try await stack.outbox.stats(now: Date()).pending == 0)
    }
}
