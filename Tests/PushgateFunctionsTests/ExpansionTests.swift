import Foundation
import PushgateCore
import PushgateTesting
import Testing

@testable import PushgateFunctions

/// An agent with more devices than its trigger's answer lists is expanded page by
/// page while the first pages are out: the answer never waits for a row per device.
@Suite("Expansion: big agents page by page")
struct ExpansionTests {
    let cwd = "/srv/agent"
    static let devices = 1_201

    /// `devices` devices written straight into the store, registered a minute before
    /// the clock's time; `device-0100` holds the token of `device-0900` (a reinstall).
    func seed(_ fixture: FunctionsFixture) async throws {
        let collection = NamespacePaths.devices(of: AgentKey(cwd: cwd), of: fixture.serverKey)
        let registered = JSONValue.string(RFC3339.format(fixture.clock.now().addingTimeInterval(-60)))
        var writes = [SeededNamespace.server(fixture.serverKey)]
        for n in 0..<Self.devices {
            writes.append(
                .set(
                    try collection.document(String(format: "device-%04d", n)),
                    [
                        FieldName.apnsToken: .value(.string(FunctionsFixture.apnsToken(n == 100 ? 900 : n))),
                        FieldName.createdAt: .value(registered),
                    ]))
        }
        try await fixture.store.commit(writes)
    }

    @Test("answered within trigger_wait while pages are out; each device once, excluded and later ones left out")
    func answersWhileExpanding() async throws {
        let fixture = try FunctionsFixture(fanOut: FanOut(chunkSize: 100, maxConcurrentChunks: 2))
        try await seed(fixture)
        let gated = GatedProvider()
        var policy = DeliveryPolicy()
        policy.triggerWait = .milliseconds(50)
        let worker = fixture.worker(provider: gated, policy: policy)

        let answer = try await fixture.trigger(
            ["cwd": .string(cwd), "exclude_installation_id": "device-0900"], worker: worker, policy: policy)
        #expect(answer.deviceCount == Self.devices && answer.pendingCount == Self.devices)
        #expect(answer.successCount == 0 && answer.responses.isEmpty && answer.responsesOmitted == true)

        // Two pages out, none answered: the rest is not read yet.
        for _ in 0..<1000 where gated.calls < 2 { try await Task.sleep(for: .milliseconds(5)) }
        #expect(gated.calls == 2)
        let notificationID = try #require(try await fixture.outbox.entries(in: [.pending], limit: 1).first)
            .notificationID
        let stored = try await fixture.outbox.statuses(of: notificationID).count
        #expect(stored == 199, "two pages read (device-0100 shares the excluded phone's token), the rest not yet")

        // Registered after the trigger was accepted: not part of it.
        fixture.clock.advance(by: 1)
        _ = try await fixture.register([
            "cwd": .string(cwd), "installation_id": "device-5000",
            "apns_token": .string(FunctionsFixture.apnsToken(5000)),
        ])
        gated.open()
        await worker.firstTriesFinished()

        let statuses = try await fixture.outbox.statuses(of: notificationID)
        #expect(statuses.count == Self.devices - 2 && statuses.allSatisfy { $0.state == .delivered })
        #expect(!statuses.contains { ["device-0100", "device-0900", "device-5000"].contains($0.installationID) })
        policy.triggerWait = .seconds(60)
        let done = try await fixture.trigger(
            ["cwd": .string(cwd), "exclude_installation_id": "device-0900"], policy: policy)
        #expect(done.deviceCount == Self.devices - 1 && done.successCount == Self.devices - 1, "the late device too")
        #expect(done.excluded == 2 && done.pendingCount == 0)
    }

    @Test("a repeat of an expanded trigger sends nothing again and answers its counts")
    func repeatIsRecognised() async throws {
        let fixture = try FunctionsFixture()
        try await seed(fixture)
        var policy = DeliveryPolicy()
        policy.triggerWait = .seconds(60)
        let first = try await fixture.trigger(["cwd": .string(cwd)], idempotencyKey: "run-1", policy: policy)
        let again = try await fixture.trigger(["cwd": .string(cwd)], idempotencyKey: "run-1", policy: policy)
        #expect(first.successCount == Self.devices - 1 && first.excluded == 1, "the reinstall's twin once")
        #expect(again.duplicate == true && again.successCount == Self.devices - 1)
        #expect(fixture.provider.sends.flatMap(\.targets).count == Self.devices - 1)
    }
}
