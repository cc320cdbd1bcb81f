import Foundation
import PushgateCore

/// `GET /diagnostics`: what the caller's namespace looks like from the gateway —
/// whether its proxy is connected, and per agent its devices, its last trigger, its
/// last notification and how that went, and the reminders waiting. With
/// `?installation_id=…`, one device: its token preview, its agents, its last
/// notification and outcome. Never another namespace's data.
public struct DiagnosticsFunction: Sendable {
    /// `lastSeenAt` within this: `connected`.
    public static let connectedWithin: TimeInterval = 60
    /// Within this: `recent`; older: `not_connected`.
    public static let recentWithin: TimeInterval = 300

    private let store: any DocumentStore
    private let outbox: any Outbox
    private let now: @Sendable () -> Date

    public init(store: any DocumentStore, outbox: any Outbox, now: @escaping @Sendable () -> Date = Date.init) {
        self.store = store
        self.outbox = outbox
        self.now = now
    }

    public func callAsFunction(secret: PushSecret, _ request: DiagnosticsRequest) async throws -> JSONValue {
        let serverKey = secret.serverKey
        let id = request.installationID
        // The one call that does not refresh lastSeenAt: an app asking whether the
        // proxy is connected must not make it look connected.
        let server = try await store.document(at: NamespacePaths.server(serverKey))
        let lastSeen = server?.string(FieldName.lastSeenAt)
        var answer: [String: JSONValue] = [
            "server_key": .string(serverKey.hex),
            "status": .string(status(lastSeenAt: lastSeen.flatMap(RFC3339.parse))),
        ]
        answer["last_seen_at"] = lastSeen.map(JSONValue.string)
        if let id {
            answer["installation"] = try await installation(id, serverKey: serverKey)
        } else {
            answer["agents"] = .array(try await agents(serverKey: serverKey))
        }
        return .object(answer)
    }

    func status(lastSeenAt: Date?) -> String {
        guard let lastSeenAt else { return "not_connected" }
        let age = now().timeIntervalSince(lastSeenAt)
        if age <= Self.connectedWithin { return "connected" }
        if age <= Self.recentWithin { return "recent" }
        return "not_connected"
    }

    private func agents(serverKey: ServerKey) async throws -> [JSONValue] {
        let agents = try await store.documents(in: NamespacePaths.server(serverKey).collection(NamespacePaths.agents))
        var result: [JSONValue] = []
        for agent in agents {
            let agentKey = AgentKey(hex: agent.path.documentID)
            let devices = try await store.documents(
                in: NamespacePaths.devices(of: agentKey, of: serverKey), selecting: [])
            let activity = try await outbox.activity(serverKey: serverKey.hex, agentKey: agentKey.hex)
            var entry: [String: JSONValue] = [
                "agent_key": .string(agentKey.hex),
                "cwd": agent.fields[FieldName.cwd] ?? .null,
                "device_count": .number(Double(devices.count)),
                "last_outcomes": .object(activity.lastOutcomes.mapValues { .number(Double($0)) }),
                "pending_reminders": .number(Double(activity.pendingReminders)),
            ]
            entry["agent_display_name"] = agent.fields[FieldName.agentDisplayName]
            entry["last_triggered_at"] = agent.fields[FieldName.lastTriggeredAt]
            entry["last_notification_at"] = activity.lastNotificationAt.map { .string(RFC3339.format($0)) }
            result.append(.object(entry))
        }
        return result
    }

    private func installation(_ id: String, serverKey: ServerKey) async throws -> JSONValue {
        let devices = try await store.documents(
            inGroup: NamespacePaths.devices, under: NamespacePaths.server(serverKey), where: .documentID(id))
        var agents: [JSONValue] = []
        var latest: (at: Date, outcome: String)?
        var preview: String?
        for device in devices {
            let agentKey = device.path.segments[3]
            let cwd = try await store.document(at: NamespacePaths.agent(AgentKey(hex: agentKey), of: serverKey))?
                .fields[FieldName.cwd]
            agents.append(["agent_key": .string(agentKey), "cwd": cwd ?? .null])
            preview = preview ?? DeviceRecord(document: device).deliveryToken.map { String($0.value.prefix(8)) }
            let activity = try await outbox.activity(serverKey: serverKey.hex, agentKey: agentKey)
            guard let notificationID = activity.lastNotificationID, let at = activity.lastNotificationAt,
                latest.map({ at > $0.at }) ?? true,
                let status = try await outbox.status(of: notificationID, installationID: id)
            else { continue }
            let outcome = status.state == .failed ? status.lastReason ?? "failed" : status.state.rawValue
            latest = (at, outcome)
        }
        var answer: [String: JSONValue] = ["installation_id": .string(id), "agents": .array(agents)]
        answer["token_preview"] = preview.map(JSONValue.string)
        answer["last_notification_at"] = latest.map { .string(RFC3339.format($0.at)) }
        answer["last_outcome"] = latest.map { .string($0.outcome) }
        return .object(answer)
    }
}
