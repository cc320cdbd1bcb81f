import Foundation
import PushgateCore
import PushgateServices
import Testing

/// Which devices an event is held back from (issue 75): an app that shows the agent's
/// chat, a person at the agent's keyboard; never an approval or a question.
@Suite("Hold-back: quiet while the person is there")
struct HoldBackTests {
    typealias Plans = TriggerPlanTests
    static let now = Plans.now

    /// A device of the agent: `a…` APNs, `f…` FCM, `w…` Web Push; in the app's
    /// foreground until `foregroundUntil` when given.
    static func device(_ token: String, number: Int, foregroundUntil: Date? = nil) throws -> DeviceRecord {
        var fields: [String: JSONValue] = [:]
        let service = ["a": "apns", "f": "fcm", "w": "webpush"][String(token.prefix(1))] ?? "apns"
        fields[service + "Token"] =
            service == "webpush"
            ? .string(#"{"endpoint":"https://push.example/\#(token)","p256dh":"x","auth":"y"}"#) : .string(token)
        fields[FieldName.foregroundUntil] = foregroundUntil.map { .string(RFC3339.format($0)) }
        return DeviceRecord(
            document: Document(
                path: try NamespacePaths.devices(of: Plans.agent, of: Plans.server).document("device-\(number)"),
                fields: fields),
            formats: .installed)
    }

    static func plan(
        _ request: TriggerRequest, devices: [DeviceRecord], atKeyboardAt: Date? = nil, window: TimeInterval? = nil
    ) -> TriggerPlan {
        var rules = Plans.rules()
        rules.atKeyboardWindow = window
        return TriggerPlan(
            request, serverKey: Plans.server, agentKey: Plans.agent, agentDisplayName: "My Agent", devices: devices,
            atKeyboardAt: atKeyboardAt, rules: rules, now: now)
    }

    @Test("a reply to an app showing the chat: a silent update on APNs, nothing on Web Push, the rest as ever")
    func inApp() throws {
        let soon = Self.now + 30
        let devices = [
            try Self.device("a1", number: 1, foregroundUntil: soon), try Self.device("f2", number: 2),
            try Self.device("w3", number: 3, foregroundUntil: soon),
            try Self.device("a4", number: 4, foregroundUntil: Self.now - 1),
        ]
        let plan = Self.plan(Plans.request(.replyFinished), devices: devices)
        #expect(plan.deliveries.map(\.installationID) == ["device-2", "device-4"], "a word 1 s old has lapsed")
        #expect(plan.heldBack.count == 2)
        let silent = try #require(plan.heldBack.first { $0.withheldBecause == nil })
        #expect(silent.deliveries.map(\.installationID) == ["device-1"])
        #expect(silent.notification.content.isBadgeUpdate && silent.notification.content.contentAvailable)
        #expect(silent.notification.content.heldBack == .inApp)
        #expect(silent.notification.content.data["type"] == "reply_finished")
        #expect(silent.notification.content.data["body"] == .string(plan.notification.content.body))
        let withheld = try #require(plan.heldBack.first { $0.withheldBecause == .inApp })
        #expect(withheld.deliveries.map(\.installationID) == ["device-3"])
        #expect(plan.enqueueRequest.reminders.count == 2, "stored in the same write as the push")
    }

    @Test("the person at the keyboard within the window: nothing goes to any device, each one recorded")
    func atKeyboard() throws {
        let devices = [try Self.device("a1", number: 1), try Self.device("w2", number: 2)]
        let request = Plans.request(.replyFinished)
        let held = Self.plan(request, devices: devices, atKeyboardAt: Self.now - 60, window: 120)
        #expect(held.deliveries.isEmpty)
        #expect(held.heldBack.count == 1 && held.heldBack[0].withheldBecause == .atKeyboard)
        #expect(held.heldBack[0].deliveries.count == 2)
        #expect(held.heldBack[0].notification.content.heldBack == .atKeyboard)
        #expect(held.heldBack[0].notification.content.trackingID == held.notification.content.trackingID)
        // Outside the window, or with the setting off: pushed.
        #expect(Self.plan(request, devices: devices, atKeyboardAt: Self.now - 121, window: 120).deliveries.count == 2)
        #expect(Self.plan(request, devices: devices, atKeyboardAt: Self.now, window: nil).deliveries.count == 2)
    }

    @Test("approvals, questions, answerable replies and a run's activity are never held back")
    func neverHeldBack() throws {
        let devices = [try Self.device("a1", number: 1, foregroundUntil: Self.now + 30)]
        var answerable = Plans.request(.replyFinished, eventID: "r1")
        answerable.event.answerable = true
        for request in [
            Plans.request(.approvalRequested, eventID: "e1"), Plans.request(.questionAsked, eventID: "q1"), answerable,
        ] {
            let plan = Self.plan(request, devices: devices, atKeyboardAt: Self.now, window: 300)
            #expect(plan.heldBack.isEmpty, "\(request.event.type)")
            #expect(plan.deliveries.count == 1, "\(request.event.type)")
        }
    }

    @Test("at_keyboard is recorded on the agent only while the window is set")
    func recordsTheKeyboard() throws {
        var request = Plans.request(.runStarted)
        request.atKeyboard = true
        let devices = [try Self.device("a1", number: 1)]
        let stamp = JSONValue.string(RFC3339.format(Self.now))
        func recorded(_ plan: TriggerPlan) -> Bool {
            plan.bookkeeping.contains {
                if case .set(let fields, _) = $0.operation { return fields[FieldName.atKeyboardAt] == .value(stamp) }
                return false
            }
        }
        #expect(recorded(Self.plan(request, devices: devices, window: 300)))
        #expect(!recorded(Self.plan(request, devices: devices, window: nil)))
    }
}
