import Foundation
import PushgateCore

/// `GET /subscriptions?installation_id=…`: the agents an installation follows under
/// the caller's server, so that an app can register all of them again after a token
/// change.
public struct SubscriptionsFunction: Sendable {
    private let store: any DocumentStore
    private let now: @Sendable () -> Date

    public init(store: any DocumentStore, now: @escaping @Sendable () -> Date = Date.init) {
        self.store = store
        self.now = now
    }

    public func callAsFunction(secret: PushSecret, _ request: SubscriptionsRequest) async throws -> SubscriptionsAnswer
    {
        let id = request.installationID
        let serverKey = secret.serverKey
        try await ServerPresence(store: store).touch(serverKey, at: now())
        let devices = try await store.documents(
            inGroup: NamespacePaths.devices,
            under: NamespacePaths.server(serverKey),
            where: .documentID(id)
        )
        var subscriptions: [SubscriptionsAnswer.Subscription] = []
        for device in devices {
            // servers/{s}/agents/{a}/devices/{i}: the agent is the device's grandparent.
            let agentPath = try DocumentPath(segments: Array(device.path.segments.prefix(4)))
            guard let agent = try await store.document(at: agentPath), let cwd = agent.string(FieldName.cwd) else {
                continue
            }
            subscriptions.append(
                SubscriptionsAnswer.Subscription(
                    cwd: cwd,
                    agentKey: agentPath.documentID,
                    agentDisplayName: agent.string(FieldName.agentDisplayName),
                    since: device.string(FieldName.createdAt)
                )
            )
        }
        return SubscriptionsAnswer(
            serverKey: serverKey.hex,
            installationID: id,
            subscriptions: subscriptions.sorted { $0.cwd.utf8.lexicographicallyPrecedes($1.cwd.utf8) }
        )
    }
}
