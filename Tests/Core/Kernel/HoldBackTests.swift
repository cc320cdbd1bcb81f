import Foundation
import PushgateCore
import PushgateInstalledServices
import Testing

/// Which devices an event is held back from (issue 75): an app that shows the agent's
/// chat, a person at the agent's keyboard; never an approval or a question.
@Suite("Hold-back: quiet while the person is there")
struct HoldBackTests {
    typealias Plans = TriggerPlanTests
    static let now = Plans.now

    /// A device of the agent: `a…` APNs, `f…` FCM, `w…` Web Push; in the app's
    /// foreground until `foregroundUntil` when given.
    static func device(
        _ token: String, number: Int, foregroundUntil: Date? = nil, quietHours: QuietHours? = nil
    ) throws -> DeviceRecord {
        var fields: [String: JSONValue] = [:]
        let service = ["a": "apns", "f": "fcm", "w": "webpush"][String(token.prefix(1))] ?? "apns"
        fields[service + "Token"] =
            service == "webpush"
            ? .string(#"{"endpoint":"https://push.example/\#(token)","p256dh":"x","auth":"y"}"#) : .string(token)
        fields[FieldName.foregroundUntil] = foregroundUntil.map { .string(RFC3339.format($0)) }
        fields[FieldName.quietHours] = quietHours?.stored
        return DeviceRecord(
            document: Document(
                path: try NamespacePaths.devices(of: Plans.agent, of: Plans.server).document("device-\(number)"),
                fields: fields),
            formats: .installed)
    }

    static func plan(
        _ request: TriggerRequest, devices: [DeviceRecord], atKeyboardAt: Date? = nil, window: TimeInterval? = nil,
        holds: Bool = false
    ) -> TriggerPlan {
        var rules = Plans.rules()
        rules.atKeyboardWindow = window
        rules.holdsInQuietHours = holds
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
        #expect(plan.enqueueRequest.companions.count == 2, "stored in the same write as the push")
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

    @Test("quiet hours: passive at once by default; held until each device's hours end with hold")
    func quietHours() throws {
        // The plans' clock reads 2026-11-22 05:04 UTC.
        let night = try QuietHours(from: "22:00", to: "07:00", timeZone: "UTC")
        let earlyBird = try QuietHours(from: "04:00", to: "06:00", timeZone: "UTC")
        let daytime = try QuietHours(from: "12:00", to: "13:00", timeZone: "UTC")
        let devices = [
            try Self.device("a1", number: 1, quietHours: night), try Self.device("f2", number: 2, quietHours: daytime),
            try Self.device("a3", number: 3, quietHours: earlyBird),
        ]
        let passive = Self.plan(Plans.request(.replyFinished), devices: devices)
        #expect(passive.deliveries.map(\.installationID) == ["device-2"])
        let quiet = try #require(passive.heldBack.first)
        #expect(passive.heldBack.count == 1 && quiet.notification.content.heldBack == .quietHoursPassive)
        #expect(quiet.deliveries.map(\.installationID) == ["device-1", "device-3"])
        #expect(quiet.notification.content.interruptionLevel == "passive" && quiet.notification.content.sound == "")
        #expect(quiet.dueAt == Self.now && quiet.withheldBecause == nil, "sent at once")

        let held = Self.plan(Plans.request(.replyFinished), devices: devices, holds: true)
        #expect(
            held.heldBack.map(\.dueAt) == [
                try #require(RFC3339.parse("2026-11-22T06:00:00Z")),
                try #require(RFC3339.parse("2026-11-22T07:00:00Z")),
            ])
        #expect(held.heldBack.map { $0.deliveries.map(\.installationID) } == [["device-3"], ["device-1"]])
        #expect(
            held.heldBack.allSatisfy { $0.notification.content.heldBack == .quietHours && $0.withheldBecause == nil })
        #expect(
            held.heldBack.allSatisfy { $0.notification.expiresAt.timeIntervalSince($0.dueAt) >= 86_400 - 1 },
            "a held push lives its time to live from the hours' end")

        let approval = Self.plan(Plans.request(.approvalRequested, eventID: "e1"), devices: devices, holds: true)
        #expect(approval.heldBack.isEmpty && approval.deliveries.count == 3, "an approval breaks through")
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
