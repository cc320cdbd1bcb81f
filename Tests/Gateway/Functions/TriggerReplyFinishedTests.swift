import Foundation
import PushgateAPNs
import PushgateCore
import PushgateDelivery
import PushgateFCM
import PushgateFunctions
import PushgateMemory
import PushgateProviderKit
import PushgateSQLite
import PushgateTesting
import Synchronization
import Testing

@Suite("triggerReplyFinished")
struct TriggerReplyFinishedTests {
    let cwd = "/root/projects/my-agent"

    @Test("one notification with the composed title, body, data and collapse id goes to every device")
    func composesAndSends() async throws {
        let fixture = try FunctionsFixture()
        _ = try await fixture.register([
            "cwd": .string(cwd), "installation_id": "a", "apns_token": .string(FunctionsFixture.apnsToken(1)),
            "agent_display_name": "My Agent",
        ])
        _ = try await fixture.register(["cwd": .string(cwd), "installation_id": "b", "fcm_token": "fcm-b"])
        fixture.clock.advance(by: 5)
        let answer = try await fixture.trigger([
            "cwd": .string(cwd), "conversation_id": "conv-9", "message_preview": "  All\n\ntests   pass. ",
            "finished_at": "2026-11-22T05:04:36Z",
        ])
        #expect(
            answer.deviceCount == 2 && answer.successCount == 2 && answer.failureCount == 0 && answer.removedCount == 0)
        #expect(answer.delivery == "log")
        #expect(answer.responses.map(\.installationID) == ["a", "b"])
        // One send per push service: the fan-out's chunks hold one kind of token each.
        #expect(fixture.provider.sends.count == 2)
        let send = try #require(fixture.provider.sends.first)
        #expect(send.notification.title == "My Agent")
        #expect(send.notification.body == "All tests pass.")
        #expect(send.notification.collapseID == AgentKey(cwd: cwd).hex)
        #expect(send.notification.sound == "default")
        #expect(
            send.notification.data == [
                "type": "reply_finished", "server_key": .string(fixture.serverKey.hex), "cwd": .string(cwd),
                "conversation_id": "conv-9",
                // The id the answer named, for the phone's receipts (issue 75).
                "event_id": .string(try #require(answer.eventID)),
            ]
        )
        // The two services' chunks go out at once, in either order.
        #expect(
            Set(fixture.provider.sends.flatMap(\.targets).map(\.token)) == [
                .apns(FunctionsFixture.apnsToken(1)), .fcm("fcm-b"),
            ])

        let agent = try await fixture.store.document(
            at: NamespacePaths.agent(AgentKey(cwd: cwd), of: fixture.serverKey))
        #expect(agent?.string("lastTriggeredAt") == "2026-11-22T05:04:37.000Z")
    }

    @Test("a secret nobody registered with: answered ok with unknown_server, and nothing at all is stored")
    func unknownServer() async throws {
        let fixture = try FunctionsFixture()
        let answer = try await fixture.trigger([
            "cwd": "/nobody/here", "conversation_id": "c", "finished_at": "2026-11-22T05:04:36Z",
        ])
        #expect(answer.reason == "unknown_server" && answer.ok && answer.attempted == 0 && answer.sent == 0)
        #expect(fixture.provider.sends.isEmpty)
        #expect(try await fixture.store.allDocuments().isEmpty, "no server, agent or event state")
        let key = "reply:\(AgentKey(cwd: "/nobody/here").hex):2026-11-22T05:04:36.000Z:c"
        let stored = try await fixture.outbox.notificationID(
            idempotencyKey: key, serverKey: fixture.serverKey.hex, since: .distantPast)
        #expect(stored == nil, "no outbox row")
    }

    @Test("an agent with no devices is not an error, and no agent document is made for it")
    func noDevices() async throws {
        let fixture = try FunctionsFixture()
        _ = try await fixture.register([
            "cwd": .string(cwd), "installation_id": "a", "apns_token": .string(FunctionsFixture.apnsToken(1)),
        ])
        let answer = try await fixture.trigger(["cwd": "/nobody/here"])
        #expect(answer.deviceCount == 0 && answer.responses.isEmpty && answer.successCount == 0)
        #expect(answer.reason == nil)
        #expect(fixture.provider.sends.isEmpty)
        let agent = try await fixture.store.document(
            at: NamespacePaths.agent(AgentKey(cwd: "/nobody/here"), of: fixture.serverKey))
        #expect(agent == nil)
    }

    @Test("1,201 devices go out as chunks of 500, 500 and 201")
    func chunks() async throws {
        let fixture = try FunctionsFixture()
        let devices = NamespacePaths.devices(of: AgentKey(cwd: cwd), of: fixture.serverKey)
        var writes = [SeededNamespace.server(fixture.serverKey)]
        for n in 0..<1201 {
            writes.append(
                .set(
                    try devices.document(String(format: "device-%04d", n)),
                    ["apnsToken": .value(.string(FunctionsFixture.apnsToken(n)))]))
        }
        try await fixture.store.commit(writes)
        // The answer comes once every page is tried; a long wait only keeps a starved
        // test process (the whole suite in parallel on two cores) from answering first.
        var policy = FunctionsFixture.patientPolicy
        policy.triggerWait = .seconds(60)
        let answer = try await fixture.trigger(["cwd": .string(cwd)], policy: policy)
        #expect(answer.deviceCount == 1201 && answer.successCount == 1201)
        let sizes = fixture.provider.sends.map(\.targets.count).sorted(by: >)
        #expect(sizes == [500, 500, 201])
        let sent = Set(fixture.provider.sends.flatMap(\.targets).map(\.installationID))
        #expect(sent.count == 1201, "every device once")
    }

    @Test("chunks go out with bounded concurrency")
    func boundedConcurrency() async throws {
        let fixture = try FunctionsFixture(fanOut: FanOut(chunkSize: 10, maxConcurrentChunks: 3))
        let devices = NamespacePaths.devices(of: AgentKey(cwd: cwd), of: fixture.serverKey)
        try await fixture.store.commit(
            [SeededNamespace.server(fixture.serverKey)]
                + (0..<100).map { .set(try devices.document("d\($0)"), ["fcmToken": .value(.string("t\($0)"))]) }
        )
        let provider = ConcurrencyProbeProvider()
        // The answer waits for every chunk, however loaded the machine: this is about concurrency, not time.
        var policy = FunctionsFixture.patientPolicy
        policy.triggerWait = .seconds(120)
        let answer = try await fixture.trigger(["cwd": .string(cwd)], provider: provider, policy: policy)
        #expect(answer.successCount == 100)
        #expect(provider.calls == 10)
        #expect(provider.maxInFlight <= 3)
    }

    @Test("the devices whose tokens the provider reports invalid are deleted, exactly those")
    func removesInvalidTokens() async throws {
        let dead = [FunctionsFixture.apnsToken(2), FunctionsFixture.apnsToken(4)]
        let fixture = try FunctionsFixture(outcomes: [
            dead[0]: .tokenInvalid(reason: "Unregistered"),
            dead[1]: .tokenInvalid(reason: "BadDeviceToken"),
            FunctionsFixture.apnsToken(3): .retryLater(reason: "TooManyRequests", after: nil),
            "fcm-5": .failed(reason: "PayloadTooLarge"),
        ])
        for n in 1...4 {
            _ = try await fixture.register([
                "cwd": .string(cwd), "installation_id": .string("d\(n)"),
                "apns_token": .string(FunctionsFixture.apnsToken(n)),
            ])
        }
        _ = try await fixture.register(["cwd": .string(cwd), "installation_id": "d5", "fcm_token": "fcm-5"])
        // The same dead token under another agent stays until that agent's own trigger says so.
        _ = try await fixture.register(["cwd": "/other", "installation_id": "d2", "apns_token": .string(dead[0])])

        let answer = try await fixture.trigger(["cwd": .string(cwd)])
        #expect(answer.deviceCount == 5 && answer.successCount == 1 && answer.failureCount == 3)
        #expect(answer.removedCount == 2 && answer.pendingCount == 1, "a 429 is retried later")
        #expect(
            answer.responses.map {
                [
                    $0.installationID, $0.error?.reason ?? "ok", "\($0.error?.removed ?? false)",
                    "\($0.pending ?? false)",
                ]
            } == [
                ["d1", "ok", "false", "false"], ["d2", "Unregistered", "true", "false"],
                ["d3", "TooManyRequests", "false", "true"], ["d4", "BadDeviceToken", "true", "false"],
                ["d5", "PayloadTooLarge", "false", "false"],
            ]
        )
        let remaining = try await fixture.store.documents(
            in: NamespacePaths.devices(of: AgentKey(cwd: cwd), of: fixture.serverKey))
        #expect(remaining.map(\.path.documentID) == ["d1", "d3", "d5"])
        #expect(try await fixture.store.document(at: fixture.device("d2", cwd: "/other")) != nil)
    }

    @Test(
        "above the answer's device limit the counts stay whole and the list is left out, saying so",
        arguments: [4, 5])
    func boundedAnswer(limit: Int) async throws {
        let fixture = try FunctionsFixture(outcomes: [
            FunctionsFixture.apnsToken(2): .tokenInvalid(reason: "Unregistered"),
            FunctionsFixture.apnsToken(3): .retryLater(reason: "TooManyRequests", after: nil),
            FunctionsFixture.apnsToken(4): .failed(reason: "PayloadTooLarge"),
        ])
        for n in 1...5 {
            _ = try await fixture.register([
                "cwd": .string(cwd), "installation_id": .string("d\(n)"),
                "apns_token": .string(FunctionsFixture.apnsToken(n)),
            ])
        }
        var policy = FunctionsFixture.patientPolicy
        policy.answerMaxDevices = limit
        // The counts are the first try's: it must finish within the wait on a loaded
        // machine too (the whole suite, 2 cores: 2 s was once not enough).
        policy.triggerWait = .seconds(60)
        let answer = try await fixture.trigger(["cwd": .string(cwd)], policy: policy)
        #expect(answer.deviceCount == 5 && answer.successCount == 2 && answer.failureCount == 2)
        #expect(answer.removedCount == 1 && answer.pendingCount == 1)
        #expect(answer.errors == ["Unregistered": 1, "PayloadTooLarge": 1])
        #expect(answer.responses.count == (limit < 5 ? 0 : 5))
        #expect(answer.responsesOmitted == (limit < 5 ? true : nil), "absent when every device is listed")

        let accepted = try await fixture.triggerResult(["cwd": .string(cwd), "wait": false], policy: policy).answer
        #expect(accepted.deviceCount == 4 && accepted.pendingCount == 4, "the dead token's device is gone")
        #expect(accepted.responses.count == 4 && accepted.responsesOmitted == nil)
    }

    @Test("a device that re-registered a new token while its old one failed is kept")
    func keepsReregisteredDevice() async throws {
        let fixture = try FunctionsFixture()
        let old = FunctionsFixture.apnsToken(1)
        let new = FunctionsFixture.apnsToken(2)
        _ = try await fixture.register(["cwd": .string(cwd), "installation_id": "phone", "apns_token": .string(old)])
        // The provider reports the old token dead, but the phone registers its new
        // token while the push is in flight.
        let provider = ReregisteringProvider(deadToken: old) {
            _ = try? await fixture.register([
                "cwd": .string(cwd), "installation_id": "phone", "apns_token": .string(new),
            ])
        }
        let answer = try await fixture.trigger(["cwd": .string(cwd)], provider: provider)
        #expect(answer.responses.first?.error == .init(reason: "Unregistered", removed: false))
        #expect(answer.removedCount == 0)
        #expect(try await fixture.store.document(at: fixture.device("phone", cwd: cwd))?.string("apnsToken") == new)
    }

    @Test(
        "invalid fields are refused, naming the field",
        arguments: [
            ([:], "cwd"),
            (["cwd": .number(1)], "cwd"),
            (["cwd": "/a", "conversation_id": .string(String(repeating: "c", count: 201))], "conversation_id"),
            (["cwd": "/a", "message_preview": .array([])], "message_preview"),
            (["cwd": "/a", "finished_at": "yesterday"], "finished_at"),
            (["cwd": "/a", "finished_at": "2026-02-30T00:00:00Z"], "finished_at"),
            (["cwd": "/a", "finished_at": .number(1_763_787_872)], "finished_at"),
        ] as [([String: JSONValue], String)]
    )
    func invalid(body: [String: JSONValue], field: String) async throws {
        let fixture = try FunctionsFixture()
        await #expect {
            _ = try await fixture.trigger(body)
        } throws: { error in
            (error as? FunctionError)?.field == field
        }
        #expect(try await fixture.store.allDocuments().isEmpty)
    }
}

/// Delivers everything, slowly, and records the most sends in flight at once.
private final class ConcurrencyProbeProvider: PushProvider {
    private let inFlight = Atomic<Int>(0)
    private let highest = Atomic<Int>(0)
    private let sent = Atomic<Int>(0)
    let deliveryName = "probe"

    func send(_ notification: PushNotification, to targets: [DeliveryTarget]) async -> [DeliveryOutcome] {
        let now = inFlight.add(1, ordering: .sequentiallyConsistent).newValue
        sent.add(1, ordering: .sequentiallyConsistent)
        var seen = highest.load(ordering: .sequentiallyConsistent)
        while seen < now {
            let (exchanged, current) = highest.compareExchange(
                expected: seen, desired: now, ordering: .sequentiallyConsistent)
            if exchanged { break }
            seen = current
        }
        try? await Task.sleep(for: .milliseconds(20))
        inFlight.subtract(1, ordering: .sequentiallyConsistent)
        return targets.map { _ in .delivered }
    }

    var maxInFlight: Int { highest.load(ordering: .sequentiallyConsistent) }
    var calls: Int { sent.load(ordering: .sequentiallyConsistent) }
}

/// Reports one token dead, running `meanwhile` before it answers.
private struct ReregisteringProvider: PushProvider {
    let deadToken: String
    let meanwhile: @Sendable () async -> Void
    let deliveryName = "test"

    func send(_ notification: PushNotification, to targets: [DeliveryTarget]) async -> [DeliveryOutcome] {
        await meanwhile()
        return targets.map { $0.token.value == deadToken ? .tokenInvalid(reason: "Unregistered") : .delivered }
    }
}
