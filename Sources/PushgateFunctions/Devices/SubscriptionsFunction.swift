import Foundation
import PushgateCore

/// `GET /subscriptions?installation_id=…`: the agents an installation follows under
/// the caller's server, so that an app can register all of them again after a token
/// change.
public struct SubscriptionsFunction: Sendable {
    public struct Answer: Sendable, Hashable, Encodable {
        public struct Subscription: Sendable, Hashable, Encodable {
            public let cwd: String
            public let agentKey: String
            public let agentDisplayName: String?
            /// When this installation first registered for the agent.
            public let since: String?

            enum CodingKeys: String, CodingKey {
                case cwd
                case agentKey = "agent_key"
                case agentDisplayName = "agent_display_name"
                case since
            }
        }

        public let serverKey: String
        public let installationID: String
        /// By cwd.
        public let subscriptions: [Subscription]

        enum CodingKeys: String, CodingKey {
            case serverKey = "server_key"
            case installationID = "installation_id"
            case subscriptions
        }
    }

    private let store: any DocumentStore
    private let now: @Sendable () -> Date

    public init(store: any DocumentStore, now: @escaping @Sendable () -> Date = Date.init) {
        self.store = store
        self.now = now
    }

    public func callAsFunction(secret: PushSecret, installationID: String?) async throws -> Answer {
        guard let installationID else {
            throw FunctionError.invalidArgument("'installation_id' is required", field: "installation_id")
        }
        let id = try FieldRules.installationID(installationID)
        let serverKey = secret.serverKey
        try await ServerPresence(store: store).touch(serverKey, at: now())
        let devices = try await store.documents(
            inGroup: NamespacePaths.devices,
            under: NamespacePaths.server(serverKey),
            where: .documentID(id)
        )
        var subscriptions: [Answer.Subscription] = []
        for device in devices {
            // servers/{s}/agents/{a}/devices/{i}: the agent is the device's grandparent.
            let agentPath = try DocumentPath(segments: Array(device.path.segments.prefix(4)))
            guard let agent = try await store.document(at: agentPath), let cwd = agent.string(FieldName.cwd) else {
                continue
            }
            subscriptions.append(
                Answer.Subscription(
                    cwd: cwd,
                    agentKey: agentPath.documentID,
                    agentDisplayName: agent.string(FieldName.agentDisplayName),
                    since: device.string(FieldName.createdAt)
                )
            )
        }
        return Answer(
            serverKey: serverKey.hex,
            installationID: id,
            subscriptions: subscriptions.sorted { $0.cwd.utf8.lexicographicallyPrecedes($1.cwd.utf8) }
        )
    }
}
