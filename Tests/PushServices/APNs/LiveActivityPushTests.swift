import Foundation
import PushgateAPNs
import PushgateCore
import PushgateLiveActivity
import Testing

/// ActivityKit pushes (issue 64): the payload Apple reads, and the content state's
/// one shape (`Tests/fixtures/live-activity-content-state.json`, which the client's
/// `AgentRunContentState` decodes too).
@Suite("Live Activity pushes")
struct LiveActivityPushTests {
    static let state = AgentRunContentState(
        phase: .waitingForApproval, step: "running tests", toolsUsed: 14, startedAt: 1_795_323_872,
        updatedAt: 1_795_324_051, preview: "May I run the migration?", details: ["files_changed": "3"])

    static func aps(_ push: LiveActivityPush) throws -> [String: JSONValue] {
        try #require(try JSONValue.parse(try push.apnsPayload()).objectValue?["aps"]?.objectValue)
    }

    @Test("the content state is the documented shape, and reads back")
    func contentState() throws {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("fixtures/live-activity-content-state.json")
        let documented = try JSONValue.parse(Array(try Data(contentsOf: fixture)))
        #expect(try Self.state.json == documented)
        #expect(AgentRunContentState(json: documented) == Self.state)
        let bare = AgentRunContentState(phase: .running, startedAt: 1, updatedAt: 2)
        #expect(try bare.json == ["phase": "running", "startedAt": 1, "updatedAt": 2, "details": [:]])
        #expect(AgentRunContentState(json: ["phase": "running", "startedAt": .number(1.5), "updatedAt": 2]) == nil)
        #expect(AgentRunContentState(json: ["phase": "paused", "startedAt": 1, "updatedAt": 2]) == nil)
    }

    /// Apple, "Starting and updating Live Activities with ActivityKit push notifications":
    /// on iOS 18 a push-to-start gets the new activity's update token back only with
    /// `input-push-token: 1`; `relevance-score` orders several activities.
    @Test("a start: attributes-type, attributes, an alert, input-push-token, a relevance score, at priority 10")
    func start() throws {
        let push = try LiveActivityPush(
            event: .start, timestamp: 1_795_323_872, contentState: Self.state,
            alert: .init(title: "api@home", body: "Running", sound: nil), attributesType: "AgentRunAttributes",
            attributes: ["agentName": "api@home", "serverKey": "5e", "agentKey": "a9"], staleDate: 1_795_324_772)
        let aps = try Self.aps(push)
        #expect(aps["event"] == "start" && aps["timestamp"] == 1_795_323_872 && push.priority == 10)
        #expect(aps["attributes-type"] == "AgentRunAttributes")
        #expect(aps["attributes"] == ["agentName": "api@home", "serverKey": "5e", "agentKey": "a9"])
        #expect(aps["alert"] == ["title": "api@home", "body": "Running"])
        #expect(aps["content-state"] == (try Self.state.json) && aps["stale-date"] == 1_795_324_772)
        #expect(aps["dismissal-date"] == nil)
        #expect(aps["input-push-token"] == 1, "iOS 18 hands the app the activity's update token only then")
        #expect(aps["relevance-score"] == 100, "waiting for the person: first")
        let update = try LiveActivityPush(event: .update, timestamp: 2, contentState: Self.state)
        #expect(try Self.aps(update)["input-push-token"] == nil, "a start's alone")
    }

    @Test("for a sealed device: no step, preview or details, the neutral text as the alert and the agent's name")
    func redacted() throws {
        let push = try LiveActivityPush(
            event: .start, timestamp: 1, contentState: Self.state,
            alert: .init(title: "api@home", body: "running tests", sound: "default"),
            attributes: ["agentName": "api@home", "serverKey": "5e", "agentKey": "a9"])
        let sealed = push.redacted(by: PushSealing(title: "Agent news", body: "Open to read"))
        let state = try #require(AgentRunContentState(json: sealed.contentState))
        #expect(state.step == nil && state.preview == nil && state.details.isEmpty)
        #expect(state.phase == .waitingForApproval && state.toolsUsed == 14 && state.startedAt == 1_795_323_872)
        #expect(sealed.alert == .init(title: "Agent news", body: "Open to read", sound: "default"))
        let attributes = try #require(sealed.attributes?.objectValue)
        #expect(attributes["agentName"] == "Agent news")
        #expect(attributes["serverKey"] != "5e" && attributes["agentKey"] != "a9", "not the plain keys")
        var keyed = push
        keyed.sealedAttributes = ["serverKey": "k5e", "agentKey": "ka9"]
        #expect(
            keyed.redacted(by: PushSealing()).attributes
                == ["agentName": .string(PushSealing.defaultTitle), "serverKey": "k5e", "agentKey": "ka9"],
            "keyed ids where the trigger made them (issue 72)")
        let text = String(decoding: try sealed.apnsPayload(), as: UTF8.self)
        for secret in ["api@home", "running tests", "migration", "files_changed"] {
            #expect(!text.contains(secret), "\(secret)")
        }
    }

    /// Apple: priority 10 counts against the activity's budget; use it only when the
    /// person must be alerted now (issue 72: the end and plain updates at 5).
    @Test("an update and the end at priority 5, one with an alert at 10; the end with its dismissal date")
    func updateAndEnd() throws {
        let update = try LiveActivityPush(event: .update, timestamp: 2, contentState: Self.state, staleDate: 902)
        #expect(update.priority == 5)
        #expect(
            Set(try Self.aps(update).keys) == ["timestamp", "event", "content-state", "stale-date", "relevance-score"])
        let approval = try LiveActivityPush(
            event: .update, timestamp: 3, contentState: Self.state,
            alert: .init(title: "api@home", body: "Approval needed", sound: "default"))
        #expect(approval.priority == 10)
        #expect(
            try Self.aps(approval)["alert"] == ["title": "api@home", "body": "Approval needed", "sound": "default"])
        let end = try LiveActivityPush(event: .end, timestamp: 4, contentState: Self.state, dismissalDate: 904)
        let ended = try Self.aps(end)
        #expect(end.priority == 5 && ended["dismissal-date"] == 904)
        // As the outbox stores it.
        let stored = try JSONDecoder().decode(LiveActivityPush.self, from: try JSONEncoder().encode(approval))
        #expect(stored == approval)
    }
}
