import Foundation
import PushgateCore
import PushgateInstalledServices
import PushgateMemory
import PushgateTesting
import Testing

@testable import PushgateDelivery
@testable import PushgateFunctions

/// Quiet hours on a clock the test moves (issue 75): a reply passive at once, or
/// held until the hours end with `PUSHGATE_QUIET_HOURS=hold`; an approval breaking
/// through; each in its timeline.
@Suite("Quiet hours: passive or held, approvals through")
struct QuietHoursDeliveryTests {
    let cwd = "/srv/agent"

    /// "phone" in quiet hours (22:00 to 07:00 in Berlin: the fixture's clock reads
    /// 06:04 there, 56 minutes before they end), "desk" without any.
    func fixture() async throws -> FunctionsFixture {
        let fixture = try FunctionsFixture()
        _ = try await fixture.register([
            "cwd": .string(cwd), "installation_id": "phone", "apns_token": .string(FunctionsFixture.apnsToken(1)),
            "quiet_hours": ["from": "22:00", "to": "07:00", "time_zone": "Europe/Berlin"],
        ])
        _ = try await fixture.register([
            "cwd": .string(cwd), "installation_id": "desk", "apns_token": .string(FunctionsFixture.apnsToken(2)),
        ])
        return fixture
    }

    /// `PUSHGATE_QUIET_HOURS=hold`, with the fixture's patient waits.
    static var holding: DeliveryPolicy {
        var policy = FunctionsFixture.patientPolicy
        policy.holdsInQuietHours = true
        return policy
    }

    func sends(_ fixture: FunctionsFixture, to installationID: String) -> [PushNotification] {
        fixture.provider.sends.filter { $0.targets.contains { $0.installationID == installationID } }.map(
            \.notification)
    }

    func timeline(_ fixture: FunctionsFixture, _ eventID: String) async throws -> [String] {
        let status = try await EventStatusFunction(store: fixture.store, outbox: fixture.outbox, formats: .installed)(
            secret: fixture.secret, EventStatusRequest(fields: RequestFields(["event_id": .string(eventID)])))
        let phone = status.installations.first { $0.installationID == "phone" }
        return (phone?.timeline ?? []).map { step in
            step.reason.map { "\(step.state.rawValue):\($0)" } ?? step.state.rawValue
        }
    }

    @Test("passive (the default): the reply goes at once without a sound or a banner; the desk's rings")
    func passive() async throws {
        let fixture = try await fixture()
        let answer = try await fixture.trigger(["cwd": .string(cwd), "message_preview": "Done."])
        #expect(answer.heldBack == ["quiet_hours": 1] && answer.deviceCount == 1)
        let quiet = try #require(sends(fixture, to: "phone").first)
        #expect(quiet.interruptionLevel == "passive" && quiet.sound.isEmpty && quiet.body == "Done.")
        #expect(sends(fixture, to: "desk").first?.interruptionLevel == nil)
        let eventID = try #require(answer.eventID)
        #expect(try await timeline(fixture, eventID) == ["accepted", "sent:passive"])
    }

    @Test("hold: the reply waits until 07:00 in Berlin, an approval breaks through, the hours' end sends it")
    func hold() async throws {
        let fixture = try await fixture()
        let policy = Self.holding
        let worker = fixture.worker(policy: policy)
        let answer = try await fixture.trigger(
            ["cwd": .string(cwd), "message_preview": "Done."], worker: worker, policy: policy)
        #expect(answer.heldBack == ["quiet_hours": 1])
        #expect(sends(fixture, to: "phone").isEmpty && sends(fixture, to: "desk").count == 1)
        let approval = try await fixture.event(
            ["cwd": .string(cwd), "type": "approval_requested", "event_id": "ap-1", "body": "Deploy?"], worker: worker,
            policy: policy)
        #expect(approval.heldBack == nil && approval.successCount == 2, "an approval breaks through")
        #expect(sends(fixture, to: "phone").map { $0.data["type"] } == ["approval_requested"])

        let eventID = try #require(answer.eventID)
        #expect(try await timeline(fixture, eventID) == ["accepted", "suppressed:quiet_hours"])
        // (The approval's reminders ring meanwhile.)
        let replies = { sends(fixture, to: "phone").filter { $0.data["type"] == "reply_finished" } }
        try await fixture.pass(55 * 60, worker: worker)
        #expect(replies().isEmpty, "06:59 in Berlin: still quiet")
        try await fixture.pass(60, worker: worker)
        #expect(replies().map(\.body) == ["Done."], "07:00 in Berlin: sent")
        #expect(replies().first?.interruptionLevel == nil, "as it would have gone, not passive")
        #expect(
            try await timeline(fixture, eventID) == ["accepted", "suppressed:quiet_hours", "sent:after_quiet_hours"])
    }

    @Test("hold: three replies in the night go as one at the hours' end, each in its timeline, each confirmable")
    func foldedAtTheEnd() async throws {
        let fixture = try await fixture()
        let policy = Self.holding
        let worker = fixture.worker(policy: policy)
        var eventIDs: [String] = []
        for preview in ["Done.", "Tests pass.", "Pushed."] {
            let answer = try await fixture.trigger(
                ["cwd": .string(cwd), "message_preview": .string(preview)], worker: worker, policy: policy)
            #expect(answer.heldBack == ["quiet_hours": 1])
            eventIDs.append(try #require(answer.eventID))
            try await fixture.pass(10 * 60, worker: worker)
        }
        // A run's end is another type: held apart, sent as itself.
        _ = try await fixture.event(
            ["cwd": .string(cwd), "type": "run_completed", "body": "Nightly done."], worker: worker, policy: policy)
        let phone = { sends(fixture, to: "phone") }
        #expect(phone().isEmpty && sends(fixture, to: "desk").count == 4)
        try await fixture.pass(30 * 60, worker: worker)
        #expect(
            phone().map(\.body).sorted() == ["3 replies ready while you slept", "agent: Nightly done."],
            "07:00 in Berlin: one push for the replies")
        let folded = try #require(phone().first { $0.data["type"] == "reply_finished" })
        #expect(folded.data["coalesced_count"] == "3" && folded.interruptionLevel == nil)
        for eventID in eventIDs {
            #expect(
                try await timeline(fixture, eventID) == [
                    "accepted", "suppressed:quiet_hours", "sent:after_quiet_hours",
                ],
                "\(eventID)")
        }
        // The phone confirms the push by the id it carries (the latest event's), or by any.
        let receipts = ReceiptsFunction(outbox: fixture.outbox)
        for eventID in [eventIDs[2], eventIDs[0]] {
            _ = try await receipts(
                secret: fixture.secret,
                ReceiptsRequest(
                    fields: RequestFields([
                        "installation_id": "phone", "event_ids": [.string(eventID)], "kind": "opened",
                    ])))
        }
        #expect(try await timeline(fixture, eventIDs[1]).last == "opened")
    }

    @Test("a registration's quiet hours: refused whole when they do not read; {} turns them off")
    func registration() async throws {
        let fixture = try await fixture()
        await #expect {
            try await fixture.register([
                "cwd": .string(cwd), "installation_id": "phone", "apns_token": .string(FunctionsFixture.apnsToken(1)),
                "quiet_hours": ["from": "22:00", "to": "07:00", "time_zone": "Berlin"],
            ])
        } throws: { error in
            (error as? FunctionError)?.field == "quiet_hours"
        }
        let stored = try await fixture.store.document(at: try fixture.device("phone", cwd: cwd))
        #expect(stored?.fields[FieldName.quietHours]?.objectValue?["timeZone"] == "Europe/Berlin", "nothing changed")
        _ = try await fixture.register([
            "cwd": "/srv/other", "installation_id": "phone", "apns_token": .string(FunctionsFixture.apnsToken(1)),
        ])
        _ = try await fixture.register([
            "cwd": .string(cwd), "installation_id": "phone", "apns_token": .string(FunctionsFixture.apnsToken(1)),
        ])
        let kept = try await fixture.store.document(at: try fixture.device("phone", cwd: cwd))
        #expect(kept?.fields[FieldName.quietHours] != nil, "kept when a registration leaves them out")
        _ = try await fixture.register([
            "cwd": .string(cwd), "installation_id": "phone", "apns_token": .string(FunctionsFixture.apnsToken(1)),
            "quiet_hours": ["from": "23:00", "to": "06:00", "time_zone": "Asia/Tokyo"],
        ])
        let spread = try await fixture.store.document(at: try fixture.device("phone", cwd: "/srv/other"))
        #expect(
            spread?.fields[FieldName.quietHours]?.objectValue?["timeZone"] == "Asia/Tokyo",
            "new hours spread under every agent of the installation")
        _ = try await fixture.register([
            "cwd": .string(cwd), "installation_id": "phone", "apns_token": .string(FunctionsFixture.apnsToken(1)),
            "quiet_hours": [:],
        ])
        for agent in [cwd, "/srv/other"] {
            let device = try await fixture.store.document(at: try fixture.device("phone", cwd: agent))
            #expect(device?.fields[FieldName.quietHours] == nil, "turned off under \(agent)")
        }
    }
}
