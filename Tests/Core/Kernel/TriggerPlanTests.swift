import Foundation
import PushgateAPNs
import PushgateCore
import PushgateFCM
import PushgateInstalledServices
import Testing

@Suite("Trigger plan: what a trigger stores, decided from what it read")
struct TriggerPlanTests {
    static let server = PushSecret("pushgate-example-secret-0001-0123")!.serverKey
    static let agent = AgentKey(cwd: "/root/projects/my-agent")
    static let now = Date(timeIntervalSince1970: 1_795_323_872)

    /// The gateway's default rules, but those a test sets.
    static func rules(
        timeToLive: TimeInterval = 86_400, coalesceWindow: TimeInterval? = nil,
        escalation: [TimeInterval] = [900, 3600], showsPreview: Bool = true
    ) -> TriggerRules {
        TriggerRules(
            timeToLive: timeToLive, idempotencyWindow: 86_400, coalesceWindow: coalesceWindow, escalation: escalation,
            showsPreviewByDefault: showsPreview)
    }

    /// One device per token: `a…` an APNs token, `f…` an FCM one, `-` none.
    static func devices(_ tokens: [String]) throws -> [DeviceRecord] {
        try tokens.enumerated().map { number, token in
            var fields: [String: JSONValue] = [:]
            if token.hasPrefix("a") { fields[PushServiceID.apns.documentField] = .string(token) }
            if token.hasPrefix("f") { fields[PushServiceID.fcm.documentField] = .string(token) }
            return DeviceRecord(
                document: Document(
                    path: try NamespacePaths.devices(of: agent, of: server).document("device-\(number)"),
                    fields: fields), formats: .installed)
        }
    }

    static func request(
        _ type: EventType, eventID: String? = nil, badge: Bool? = nil, key: String? = nil, occurredAt: Date? = nil
    ) -> TriggerRequest {
        var event = EventComposer.Event(type: type, cwd: "/root/projects/my-agent")
        event.eventID = eventID
        event.showsBadge = badge
        return TriggerRequest(event: event, occurredAt: occurredAt, idempotencyKey: key)
    }

    static func plan(
        _ type: EventType, eventID: String? = nil, badge: Bool? = nil, key: String? = nil,
        occurredAt: Date? = nil, tokens: [String] = ["a1", "f2"], rules: TriggerRules = rules()
    ) throws -> TriggerPlan {
        TriggerPlan(
            request(type, eventID: eventID, badge: badge, key: key, occurredAt: occurredAt), serverKey: server,
            agentKey: agent, agentDisplayName: "My Agent", devices: try devices(tokens), rules: rules, now: now)
    }

    struct Row: Sendable, CustomTestStringConvertible {
        let testDescription: String
        let type: EventType
        var eventID: String? = nil
        var badge: Bool? = nil
        var coalesceWindow: TimeInterval? = nil
        var tokens = ["a1", "f2"]
        // Expected:
        var kinds: [PushServiceID] = [.apns, .fcm]
        var coalesced = false
        var resolvable = false
        var reminders = 0
        var badgeWrites = 0
    }

    @Test(
        "deliveries, coalescing, reminders and badges by event",
        arguments: [
            Row(testDescription: "a reply: one delivery per device, nothing else", type: .replyFinished),
            Row(
                testDescription: "a device without a token gets no delivery", type: .replyFinished,
                tokens: ["a1", "-", "f3"]),
            Row(
                testDescription: "an approval with an id: reminded twice, each device's badge raised",
                type: .approvalRequested, eventID: "e1", resolvable: true, reminders: 2, badgeWrites: 2),
            Row(
                testDescription: "an approval without an id: nothing to resolve", type: .approvalRequested),
            Row(
                testDescription: "an approval without a badge: reminded, no count", type: .approvalRequested,
                eventID: "e1", badge: false, resolvable: true, reminders: 2),
            Row(
                testDescription: "approvals are never coalesced", type: .approvalRequested, eventID: "e1",
                coalesceWindow: 30, resolvable: true, reminders: 2, badgeWrites: 2),
            Row(
                testDescription: "a reply with a window is held", type: .replyFinished, coalesceWindow: 30,
                coalesced: true),
            Row(
                testDescription: "a run failure with an id and a badge: counted, not reminded", type: .runFailed,
                eventID: "e2", badge: true, resolvable: true, badgeWrites: 2),
            Row(
                testDescription: "held with a badge: counted, not reminded", type: .custom("deploy"), eventID: "e3",
                badge: true, coalesceWindow: 30, coalesced: true, resolvable: true, badgeWrites: 2),
            Row(
                testDescription: "a custom event with an id and no badge: nothing to resolve",
                type: .custom("deploy"), eventID: "e4"),
        ]
    )
    func table(row: Row) throws {
        let rules = Self.rules(coalesceWindow: row.coalesceWindow)
        let plan = try Self.plan(row.type, eventID: row.eventID, badge: row.badge, tokens: row.tokens, rules: rules)
        #expect(
            TriggerPlan.mayExpand(
                Self.request(row.type, eventID: row.eventID, badge: row.badge), agentKey: Self.agent, rules: rules)
                == (!row.coalesced && !row.resolvable),
            "decided before the devices are read, as the plan decides once they are")
        #expect(plan.deliveries.map(\.token.kind) == row.kinds)
        #expect(plan.deliveries.allSatisfy { $0.notificationID == plan.notification.id })
        #expect((plan.coalescing != nil) == row.coalesced)
        #expect((plan.resolvable != nil) == row.resolvable)
        #expect(plan.resolvable?.reminders.count ?? 0 == row.reminders)
        let badgeWrites = plan.resolvable?.writes.filter { $0.path.parent.collectionID == "installations" } ?? []
        #expect(badgeWrites.count == row.badgeWrites)
        #expect(
            badgeWrites.allSatisfy {
                $0.operation
                    == .set(
                        [
                            "pendingApprovals": .arrayUnion([.string(plan.resolvable!.writes[0].path.documentID)]),
                            "updatedAt": .value(.string(RFC3339.format(plan.notification.createdAt))),
                        ], merge: true)
            }, "the event's id added to each installation's badge, once however often it is written")
        #expect(plan.enqueueRequest.lease == nil, "the worker leases what it tries at once")
    }

    @Test("a server-wide event, or one for a single installation, is never expanded page by page")
    func notExpanded() {
        var one = Self.request(.replyFinished)
        #expect(TriggerPlan.mayExpand(one, agentKey: Self.agent, rules: Self.rules()))
        #expect(!TriggerPlan.mayExpand(one, agentKey: nil, rules: Self.rules()))
        one.selection.onlyInstallationID = "phone-1"
        #expect(!TriggerPlan.mayExpand(one, agentKey: Self.agent, rules: Self.rules()))
    }

    @Test("reminders: due after the push by the schedule, the same devices, each its own time to live")
    func reminders() throws {
        let rules = Self.rules(timeToLive: 600, escalation: [60, 300])
        let plan = try Self.plan(.approvalRequested, eventID: "e1", rules: rules)
        let reminders = try #require(plan.resolvable?.reminders)
        #expect(reminders.map(\.dueAt) == [Self.now + 60, Self.now + 300])
        #expect(reminders.map(\.notification.expiresAt) == [Self.now + 660, Self.now + 900])
        #expect(reminders.allSatisfy { $0.notification.reminderOf == plan.notification.id })
        #expect(reminders.map { $0.notification.content.body.hasPrefix("Still waiting: ") } == [true, false])
        #expect(reminders[1].notification.content.body.hasPrefix("Reminder: "))
        #expect(reminders.allSatisfy { $0.deliveries.map(\.installationID) == plan.deliveries.map(\.installationID) })
        let record = try #require(plan.resolvable?.writes.first)
        #expect(record.path == NamespacePaths.event("e1", of: Self.server))
        guard case .set(let fields, _) = record.operation else {
            Issue.record("the record is set")
            return
        }
        #expect(
            fields[FieldName.reminderNotificationIDs]
                == .value(.array(reminders.map { .string($0.notification.id) })))
        #expect(fields[FieldName.notificationID] == .value(.string(plan.notification.id)))
    }

    @Test("coalescing: keyed by server, agent and type, held for the window, the count in the merged push")
    func coalescing() throws {
        let plan = try Self.plan(.replyFinished, rules: Self.rules(coalesceWindow: 30))
        let coalescing = try #require(plan.coalescing)
        #expect(coalescing.key == "\(Self.server.hex):\(Self.agent.hex):reply_finished")
        #expect(coalescing.heldUntil == Self.now + 30)
        let merged = coalescing.merged(3)
        #expect(merged.body == "3 replies ready" && merged.data["coalesced_count"] == "3")
        #expect(merged.title == plan.notification.content.title)
    }

    @Test("idempotency and bookkeeping: the key's window; the agent's time; the type's time only when given")
    func bookkeeping() throws {
        let keyed = try Self.plan(.replyFinished, key: "k", occurredAt: Self.now - 5)
        #expect(keyed.idempotency == .init(key: "k", window: 86_400))
        #expect(
            keyed.bookkeeping.map(\.path) == [
                NamespacePaths.agent(Self.agent, of: Self.server),
                NamespacePaths.eventState(.replyFinished, of: Self.agent, of: Self.server),
            ])
        #expect(keyed.bookkeeping[0].precondition == .exists, "a trigger does not create an agent")
        let plain = try Self.plan(.replyFinished)
        #expect(plain.idempotency == nil)
        #expect(plain.bookkeeping.count == 1)
        #expect(plain.notification.expiresAt == Self.now + 86_400)
    }

    @Test(
        "stale: only an event with a time, not newer than the last of its type",
        arguments: [
            (nil, nil, false),
            (nil, 0, false),
            (0, nil, false),
            (-1, 0, true),
            (0, 0, true),
            (1, 0, false),
        ] as [(TimeInterval?, TimeInterval?, Bool)]
    )
    func stale(occurred: TimeInterval?, last: TimeInterval?, stale: Bool) {
        var request = TriggerRequest(event: EventComposer.Event(type: .replyFinished, cwd: "/a"))
        request.occurredAt = occurred.map { Self.now + $0 }
        #expect(TriggerPlan.isStale(request, lastOccurredAt: last.map { Self.now + $0 }) == stale)
    }

    @Test(
        "a reply's preview: include_preview decides, else the gateway's default; an empty one is no preview",
        arguments: [
            (true, false, "Done.", "Done.", true),
            (false, true, "Done.", "Reply ready", false),
            (nil, true, "Done.", "Done.", true),
            (nil, false, "Done.", "Reply ready", false),
            (true, true, "```codeagents-ui {\"a\": 1}```  ", "Reply ready", false),
            (true, true, nil, "Reply ready", false),
        ] as [(Bool?, Bool, String?, String, Bool)]
    )
    func preview(include: Bool?, byDefault: Bool, preview: String?, body: String, included: Bool) throws {
        var event = EventComposer.Event(type: .replyFinished, cwd: "/root/projects/my-agent")
        event.body = preview
        let plan = TriggerPlan(
            TriggerRequest(event: event, includePreview: include), serverKey: Self.server, agentKey: Self.agent,
            agentDisplayName: nil, devices: try Self.devices(["a1"]), rules: Self.rules(showsPreview: byDefault),
            now: Self.now)
        #expect(plan.notification.content.body == body)
        #expect(plan.previewIncluded == included)
        #expect(plan.notification.content.contentAvailable, "a reply wakes the app, as production's do")
    }

    @Test("an event of another type shows its body whatever the reply default says")
    func eventBodyIgnoresPreviewDefault() throws {
        var event = EventComposer.Event(type: .runCompleted, cwd: "/root/projects/my-agent")
        event.body = "All green."
        let plan = TriggerPlan(
            TriggerRequest(event: event), serverKey: Self.server, agentKey: Self.agent, agentDisplayName: "My Agent",
            devices: [], rules: Self.rules(showsPreview: false), now: Self.now)
        #expect(plan.notification.content.body == "My Agent: All green." && plan.previewIncluded)
        #expect(!plan.notification.content.contentAvailable)
    }

    @Test("the selection leaves out the excluded devices and counts them")
    func selection() throws {
        var request = TriggerRequest(event: EventComposer.Event(type: .replyFinished, cwd: "/root/projects/my-agent"))
        request.selection = DeviceSelection(excludedInstallationID: "device-0")
        let plan = TriggerPlan(
            request, serverKey: Self.server, agentKey: Self.agent, agentDisplayName: nil,
            devices: try Self.devices(["a1", "f2", "a1"]), rules: Self.rules(), now: Self.now)
        #expect(plan.deliveries.map(\.installationID) == ["device-1"])
        #expect(plan.excludedCount == 2, "device-0 excluded, device-2 holds its token")
    }

    @Test("ordering: per type, per key (a conversation), or none; the state follows the scope")
    func ordering() {
        var request = TriggerRequest(event: EventComposer.Event(type: .replyFinished, cwd: "/a"))
        request.occurredAt = Self.now
        let state = { TriggerPlan.orderingState(of: request, agentKey: Self.agent, serverKey: Self.server) }
        #expect(state() == NamespacePaths.eventState(.replyFinished, of: Self.agent, of: Self.server))
        request.ordering = .byKey("conv-a")
        let conversationA = state()
        request.ordering = .byKey("conv-b")
        #expect(conversationA != nil && conversationA != state(), "each conversation has its own")
        #expect(state()?.documentID.hasPrefix("reply_finished-") == true)
        request.ordering = .none
        #expect(state() == nil)
        #expect(!TriggerPlan.isStale(request, lastOccurredAt: Self.now + 60), "nothing to compare with")
    }

    @Test("a server-wide event: stored for every agent, no agent bookkeeping, ordered and coalesced server-wide")
    func serverWide() throws {
        var request = TriggerRequest(event: EventComposer.Event(type: .custom("maintenance"), cwd: nil))
        request.occurredAt = Self.now
        let plan = TriggerPlan(
            request, serverKey: Self.server, agentKey: nil, agentDisplayName: nil,
            devices: try Self.devices(["a1", "f2"]), rules: Self.rules(coalesceWindow: 3), now: Self.now)
        #expect(plan.notification.agentKey == OutboxNotification.everyAgent && plan.notification.isServerWide)
        #expect(plan.deliveries.count == 2)
        #expect(plan.coalescing?.key == "\(Self.server.hex):*:maintenance")
        let state = try #require(TriggerPlan.orderingState(of: request, agentKey: nil, serverKey: Self.server))
        #expect(state.rawValue == "servers/\(Self.server.hex)/lastEvents/maintenance")
        #expect(
            plan.bookkeeping == [.set(state, [FieldName.lastOccurredAt: .value(.string(RFC3339.format(Self.now)))])])
    }
}
