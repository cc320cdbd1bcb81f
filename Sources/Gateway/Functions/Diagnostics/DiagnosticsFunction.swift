import Foundation
import PushgateCore

/// `GET /diagnostics`: what the caller's namespace looks like from the gateway —
/// whether its agent side is connected (the server, the best of its sources, and
/// each source a heartbeat named), and per agent its devices, its last trigger, its
/// last notification and how that went, and the reminders waiting. With
/// `?installation_id=…`, one device: its token preview, its agents, its last
/// notification and outcome. With `?agent_key=…`, that agent and a page of its
/// devices: platform, token kind and preview, registration times, and how the
/// agent's last notification went for each. Without an installation, the events
/// still waiting for `resolveEvent` (approvals) with their reminders' times. Never
/// another namespace's data.
///
/// The agents come a page at a time, each page in a fixed number of queries (none
/// per agent); with an installation, its last notification is the latest among the
/// page's agents. A page of devices reads each one's last delivery by its key.
public struct DiagnosticsFunction: Sendable {
    private let store: any DocumentStore
    private let outbox: any OutboxQueries
    private let formats: PushAddressFormats
    private let presence: PresencePolicy
    private let now: @Sendable () -> Date

    /// `formats`: which of a device's fields hold its addresses (the one pushes go to
    /// is shown, by its first 8 characters).
    public init(
        store: any DocumentStore, outbox: any OutboxQueries, formats: PushAddressFormats,
        presence: PresencePolicy = PresencePolicy(), now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.store = store
        self.outbox = outbox
        self.formats = formats
        self.presence = presence
        self.now = now
    }

    public func callAsFunction(secret: PushSecret, _ request: DiagnosticsRequest) async throws -> JSONValue {
        let serverKey = secret.serverKey
        let id = request.installationID
        // Reads only: an app asking whether the proxy is connected must not make it
        // look connected.
        let now = self.now()
        let server = try await store.document(at: NamespacePaths.server(serverKey))
        let sources = try await store.documents(in: NamespacePaths.sources(of: serverKey)).compactMap {
            source -> (name: String, lastSeenAt: String)? in
            guard let name = source.string(FieldName.source), let seen = source.string(FieldName.lastSeenAt) else {
                return nil
            }
            return (name, seen)
        }.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
        // The server's own time and its sources' are written apart (each at most every
        // 10 s): the best of them is the server's.
        let lastSeen = ([server?.string(FieldName.lastSeenAt)].compactMap { $0 } + sources.map(\.lastSeenAt))
            .max { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        var answer: [String: JSONValue] = [
            "server_key": .string(serverKey.hex),
            "status": .string(presence.status(lastSeenAt: lastSeen.flatMap(RFC3339.parse), now: now)),
            "sources": .array(
                sources.map { source in
                    [
                        "source": .string(source.name), "last_seen_at": .string(source.lastSeenAt),
                        "status": .string(
                            presence.status(lastSeenAt: RFC3339.parse(source.lastSeenAt), now: now)),
                    ]
                }),
        ]
        answer["last_seen_at"] = lastSeen.map(JSONValue.string)
        let nextPageToken: String?
        if let id, request.agentKey == nil {
            let page = try await InstallationPage.read(id, of: serverKey, page: request.page, in: store)
            answer["installation"] = try await installation(id, page: page, serverKey: serverKey)
            nextPageToken = page.nextPageToken
        } else if let agentKey = request.agentKey {
            answer["pending_events"] = .array(
                try await PendingEvents.read(serverKey: serverKey, agentKey: agentKey, now: now, store: store))
            // An agent that is not there (never registered, or swept) has no devices to list.
            var devices: [JSONValue] = []
            var agents: [JSONValue] = []
            var next: String?
            if let agent = try await store.document(at: NamespacePaths.agent(agentKey, of: serverKey)) {
                agents = try await entries(of: [agent], serverKey: serverKey)
                (devices, next) = try await AgentDevicesPage.read(
                    request.page, agentKey: agentKey, installationID: id, serverKey: serverKey, store: store,
                    outbox: outbox, formats: formats)
            }
            nextPageToken = next
            answer["agents"] = .array(agents)
            answer["devices"] = .array(devices)
        } else {
            answer["pending_events"] = .array(
                try await PendingEvents.read(serverKey: serverKey, agentKey: nil, now: now, store: store))
            let agents: [JSONValue]
            (agents, nextPageToken) = try await agentsPage(request.page, serverKey: serverKey)
            answer["agents"] = .array(agents)
        }
        answer["next_page_token"] = nextPageToken.map(JSONValue.string)
        return .object(answer)
    }

    private func agentsPage(_ page: PageRequest, serverKey: ServerKey) async throws -> (
        agents: [JSONValue], nextPageToken: String?
    ) {
        let read = try await store.documents(
            in: NamespacePaths.server(serverKey).collection(NamespacePaths.agents), after: page.afterAgentKey,
            limit: page.readLimit)
        let (agents, nextPageToken) = page.cut(read) { $0.path.documentID }
        return (try await entries(of: agents, serverKey: serverKey), nextPageToken)
    }

    /// The agents' entries, in a fixed number of queries.
    private func entries(of agents: [Document], serverKey: ServerKey) async throws -> [JSONValue] {
        let agentKeys = agents.map { AgentKey(hex: $0.path.documentID) }
        let deviceCounts = try await store.counts(in: agentKeys.map { NamespacePaths.devices(of: $0, of: serverKey) })
        let activities = try await outbox.activities(serverKey: serverKey.hex, agentKeys: agentKeys.map(\.hex))
        let entries = zip(agents, agentKeys).map { agent, agentKey -> JSONValue in
            let activity = activities[agentKey.hex] ?? .none
            var entry: [String: JSONValue] = [
                "agent_key": .string(agentKey.hex),
                "cwd": agent.fields[FieldName.cwd] ?? .null,
                "device_count": .number(Double(deviceCounts[NamespacePaths.devices(of: agentKey, of: serverKey)] ?? 0)),
                "last_outcomes": .object(activity.lastOutcomes.mapValues { .number(Double($0)) }),
                "pending_reminders": .number(Double(activity.pendingReminders)),
            ]
            entry["agent_display_name"] = agent.fields[FieldName.agentDisplayName]
            entry["last_triggered_at"] = agent.fields[FieldName.lastTriggeredAt]
            entry["last_notification_at"] = activity.lastNotificationAt.map { .string(RFC3339.format($0)) }
            return .object(entry)
        }
        return entries
    }

    private func installation(_ id: String, page: InstallationPage, serverKey: ServerKey) async throws -> JSONValue {
        let agents: [JSONValue] = page.entries.map { entry in
            ["agent_key": .string(entry.agentKey.hex), "cwd": entry.agent?.fields[FieldName.cwd] ?? .null]
        }
        let preview = page.entries.lazy.compactMap { DeviceRecord(document: $0.device, formats: formats).deliveryToken }
            .first
            .map(formats.preview(of:))
        let activities = try await outbox.activities(
            serverKey: serverKey.hex, agentKeys: page.entries.map(\.agentKey.hex))
        // Each agent's last notification, then the newest of those this device took part in.
        let notifications = activities.values.compactMap { activity in
            activity.lastNotificationID.flatMap { id in activity.lastNotificationAt.map { (id: id, at: $0) } }
        }
        let statuses = try await outbox.statuses(of: notifications.map(\.id), installationID: id)
        let latest = notifications.compactMap { notification in
            statuses[notification.id].map { status in
                (
                    at: notification.at,
                    outcome: status.state == .failed ? status.lastReason ?? "failed" : status.state.rawValue
                )
            }
        }.max { $0.at < $1.at }
        var answer: [String: JSONValue] = ["installation_id": .string(id), "agents": .array(agents)]
        answer["token_preview"] = preview.map(JSONValue.string)
        answer["last_notification_at"] = latest.map { .string(RFC3339.format($0.at)) }
        answer["last_outcome"] = latest.map { .string($0.outcome) }
        return .object(answer)
    }
}
