import Foundation
import PushgateCore
import PushgateSQLite
import PushgateTesting
import Testing

@testable import PushgateDelivery
@testable import PushgateFunctions

@Suite("Coalescing: events of one type within the window go out as one push")
struct CoalescingTests {
    let cwd = "/srv/agent"
    let policy: DeliveryPolicy = {
        var policy = FunctionsFixture.patientPolicy
        policy.coalesceWindow = .seconds(3)
        return policy
    }()

    func fixture(devices: [String] = ["phone", "ipad"]) async throws -> FunctionsFixture {
        let fixture = try FunctionsFixture()
        for (n, id) in devices.enumerated() { try await register(id, n: n + 1, in: fixture) }
        return fixture
    }

    func register(_ id: String, n: Int, in fixture: FunctionsFixture) async throws {
        _ = try await fixture.register([
            "cwd": .string(cwd), "installation_id": .string(id), "apns_token": .string(FunctionsFixture.apnsToken(n)),
            "agent_display_name": "Builder",
        ])
    }

    func event(
        _ type: String, body: String? = nil, key: String? = nil, _ fixture: FunctionsFixture, worker: DeliveryWorker
    ) async throws -> TriggerAnswer {
        var fields: [String: JSONValue] = ["cwd": .string(cwd), "type": .string(type)]
        fields["body"] = body.map(JSONValue.string)
        return try await fixture.event(fields, idempotencyKey: key, worker: worker, policy: policy)
    }

    @Test("three replies within 3 s: one push, \"3 replies ready\", at the window's end; the next window starts afresh")
    func threeIntoOne() async throws {
        let fixture = try await fixture()
        let worker = fixture.worker(policy: policy)
        var answers: [TriggerAnswer] = []
        for n in 1...3 {
            if n > 1 { try await fixture.pass(1, worker: worker) }
            answers.append(try await event("reply_finished", body: "Reply \(n)", fixture, worker: worker))
        }
        #expect(answers.map(\.coalescedCount) == [1, 2, 3])
        #expect(Set(answers.map(\.heldUntil)).count == 1, "every event names the same push")
        #expect(answers.allSatisfy { $0.pendingCount == 2 && $0.deviceCount == 2 })
        #expect(fixture.provider.sends.isEmpty, "nothing before the window's end (3 s after the first)")

        try await fixture.pass(0.999, worker: worker)
        #expect(fixture.provider.sends.isEmpty)
        try await fixture.pass(0.001, worker: worker)
        let sends = fixture.provider.sends
        #expect(sends.count == 1)
        #expect(sends.first?.notification.body == "3 replies ready")
        #expect(sends.first?.notification.title == "Builder")
        #expect(sends.first?.notification.data["coalesced_count"] == "3")
        #expect(sends.first?.targets.count == 2)

        let later = try await event("reply_finished", body: "Reply 4", fixture, worker: worker)
        #expect(later.coalescedCount == 1)
        try await fixture.pass(3, worker: worker)
        #expect(fixture.provider.sends.map(\.notification.body) == ["3 replies ready", "Reply 4"])
    }

    @Test("types are kept apart, approvals never wait, and a repeat is not counted twice")
    func keysAndRepeats() async throws {
        let fixture = try await fixture(devices: ["phone"])
        let worker = fixture.worker(policy: policy)
        _ = try await event("run_completed", key: "run-1", fixture, worker: worker)
        let repeated = try await event("run_completed", key: "run-1", fixture, worker: worker)
        #expect(repeated.duplicate == true)
        _ = try await event("run_completed", key: "run-2", fixture, worker: worker)
        _ = try await event("run_failed", fixture, worker: worker)
        let approval = try await fixture.event(
            ["cwd": .string(cwd), "type": "approval_requested", "event_id": "ok?"], worker: worker, policy: policy)
        #expect(approval.successCount == 1 && approval.coalescedCount == nil, "an approval is pushed at once")
        #expect(fixture.provider.sends.map(\.notification.title) == ["Approval needed"])

        try await fixture.pass(3, worker: worker)
        let bodies = Set(fixture.provider.sends.dropFirst().map(\.notification.body))
        #expect(bodies == ["2 runs completed", "Builder"])
        let late = try await event("run_completed", key: "run-2", fixture, worker: worker)
        #expect(late.duplicate == true && late.successCount == 1, "a repeat answers the push that carried it")
    }

    @Test("a device that subscribes during the window gets the push; a restart does not lose it")
    func newDeviceAndRestart() async throws {
        let fixture = try await fixture(devices: ["phone"])
        _ = try await event("reply_finished", fixture, worker: fixture.worker(policy: policy))
        try await register("ipad", n: 2, in: fixture)
        let second = try await event("reply_finished", fixture, worker: fixture.worker(policy: policy))
        #expect(second.deviceCount == 2)

        try await fixture.pass(3, worker: fixture.worker(policy: policy))
        #expect(fixture.provider.sends.map(\.notification.body) == ["2 replies ready"])
        #expect(Set(fixture.provider.sends.flatMap(\.targets).map(\.installationID)) == ["phone", "ipad"])
    }
}
