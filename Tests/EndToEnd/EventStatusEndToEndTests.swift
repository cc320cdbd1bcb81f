import Foundation
import PushgateCore
import PushgateTesting
import Testing

/// Issue 75's timeline through real processes: an approval sent to a phone at the
/// APNs emulator (its `apns-id` the message id), refused for a device no push service
/// serves, decided on the phone; a reply without an event id found by the id its
/// trigger's answer made; `pushgate status` printing the same.
@Suite("End to end: every push accounted for")
struct EventStatusEndToEndTests {
    /// The decisions' suite's fixture: its secret, folder, tokens and helpers.
    let decisions: DecisionsEndToEndTests

    init() throws {
        decisions = try DecisionsEndToEndTests()
    }

    func status(_ gateway: RunningGateway, _ eventID: String) async throws -> [String: [[String: JSONValue]]] {
        let answer = try await decisions.call(gateway, "eventStatus", #"{"event_id": "\#(eventID)"}"#)
        #expect(answer.status == 200 && answer.json["event_id"]?.stringValue == eventID, "\(answer.body)")
        var timelines: [String: [[String: JSONValue]]] = [:]
        for installation in (answer.json["installations"]?.arrayValue ?? []).compactMap(\.objectValue) {
            timelines[installation["installation_id"]?.stringValue ?? ""] =
                (installation["timeline"]?.arrayValue ?? []).compactMap(\.objectValue)
        }
        return timelines
    }

    @Test("an approval's timeline: accepted, sent with its apns-id, refused with its reason, decided")
    func approvalTimeline() async throws {
        let (emulator, gateway, phone) = try await decisions.startedWithPhone()
        defer { emulator.terminate() }
        defer { gateway.terminate() }
        let pixel = try await decisions.call(
            gateway, "registerSubscription",
            #"{"cwd": "\#(decisions.cwd)", "installation_id": "pixel", "fcm_token": "pixel-fcm-token-0001"}"#)
        #expect(pixel.status == 200, "\(pixel.body)")

        let approval = try await decisions.call(
            gateway, "triggerEvent",
            #"{"cwd": "\#(decisions.cwd)", "type": "approval_requested", "event_id": "ship-7", "body": "Ship it?"}"#)
        #expect(approval.status == 200 && approval.json["event_id"] == "ship-7", "\(approval.body)")
        let eventID = try await decisions.approvalEventID(at: emulator, for: decisions.phoneToken)
        let apnsID = try #require(
            try await emulator.entries().first { $0["device_token"]?.stringValue == decisions.phoneToken }?["headers"]?
                .objectValue?["apns-id"]?.stringValue)
        // The phone's receipts: delivered, then opened; one naming an event it was not
        // sent is refused and records nothing.
        for kind in ["delivered", "opened"] {
            let receipt = try await decisions.call(
                gateway, "receipts", #"{"installation_id": "phone", "event_ids": ["ship-7"], "kind": "\#(kind)"}"#)
            #expect(receipt.status == 200 && receipt.json["recorded"] == 1, "\(receipt.body)")
        }
        let stray = try await decisions.call(
            gateway, "receipts", #"{"installation_id": "pixel", "event_ids": ["ship-7", "x"], "kind": "opened"}"#)
        #expect(stray.status == 403 && stray.body.contains("not_a_recipient"), "\(stray.body)")
        let decided = try await decisions.decide(gateway, eventID, as: "phone", with: phone, "allow")
        #expect(decided.status == 200, "\(decided.body)")
        // Who decided, by the name the phone registered (issue 82).
        let named = try await decisions.call(gateway, "eventStatus", #"{"event_id": "\#(eventID)"}"#)
        #expect(
            named.json["installations"]?.arrayValue?.contains {
                $0.objectValue?["installation_id"] == "phone" && $0.objectValue?["device_name"] == "Ana's iPhone"
            } == true, "\(named.body)")

        let timelines = try await status(gateway, "ship-7")
        let phoneSteps = try #require(timelines["phone"])
        #expect(
            phoneSteps.map { $0["state"]?.stringValue } == ["accepted", "sent", "delivered", "opened", "decided"],
            "\(phoneSteps)")
        #expect(phoneSteps[1]["service"] == "apns" && phoneSteps[1]["message_id"] == .string(apnsID), "\(phoneSteps)")
        #expect(phoneSteps[4]["reason"] == "allow", "\(phoneSteps)")
        let times = phoneSteps.compactMap { $0["at"]?.stringValue }
        #expect(times == times.sorted() && times.count == 5, "oldest first: \(times)")
        let pixelSteps = try #require(timelines["pixel"])
        #expect(pixelSteps.map { $0["state"]?.stringValue } == ["accepted", "refused"], "nothing kept: \(pixelSteps)")
        #expect(pixelSteps[1]["reason"] == "no_fcm_provider" && pixelSteps[1]["service"] == "fcm", "\(pixelSteps)")

        // A reply with no event id of its own: found by the id its answer made.
        let reply = try await decisions.call(
            gateway, "triggerReplyFinished", #"{"cwd": "\#(decisions.cwd)", "message_preview": "Shipped."}"#)
        let made = try #require(reply.json["event_id"]?.stringValue, "\(reply.body)")
        #expect(try await status(gateway, made)["phone"]?.first?["state"] == "accepted")
        // Another server sees none of it; an unknown event is 404.
        let stranger = try await CurlCall.run(
            "POST", gateway.baseURL + "/eventStatus", secret: PushSecret.generate().value,
            body: #"{"event_id": "ship-7"}"#)
        #expect(stranger.status == 404, "\(stranger.body)")

        let printed = try await BuiltExecutable.run(
            ["status", "--event-id", "ship-7"], environment: decisions.environment(gateway))
        #expect(printed.status == 0 && printed.stdout.contains(apnsID), "\(printed.stdout)\(printed.stderr)")
    }
}
