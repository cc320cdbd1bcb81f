import Foundation
import PushgateCore

/// `GET /subscriptions`: with `?installation_id=…`, the agents an installation
/// follows under the caller's server, so that an app can register all of them again
/// after a token change; with `?token=…`, the agents (and installations) a push
/// token is registered under, to find who a token belongs to. Never another
/// namespace's.
public struct SubscriptionsFunction: Sendable {
    private let store: any DocumentStore
    private let formats: PushAddressFormats

    /// `formats`: the services whose addresses a token is looked up as.
    public init(store: any DocumentStore, formats: PushAddressFormats) {
        self.store = store
        self.formats = formats
    }

    public func callAsFunction(secret: PushSecret, _ request: SubscriptionsRequest) async throws -> SubscriptionsAnswer
    {
        let serverKey = secret.serverKey
        switch request.subject {
        case .installation(let id):
            let page = try await InstallationPage.read(id, of: serverKey, page: request.page, in: store)
            let subscriptions = page.entries.compactMap { entry in
                Self.subscription(entry.device, agent: entry.agent, installationID: nil)
            }
            return SubscriptionsAnswer(
                serverKey: serverKey.hex, installationID: id, subscriptions: subscriptions.sorted(by: Self.byCwd),
                nextPageToken: page.nextPageToken)
        case .token(let token):
            // servers/{s}/agents/{a}/devices/{i}: the agent is the path's fourth segment.
            let devices = try await devices(withToken: token, under: serverKey)
            let agentPaths = devices.map { NamespacePaths.agent(AgentKey(hex: $0.path.segments[3]), of: serverKey) }
            let agents = Dictionary(
                try await store.documents(at: agentPaths).map { ($0.path.documentID, $0) },
                uniquingKeysWith: { first, _ in first })
            let subscriptions = devices.compactMap { device in
                Self.subscription(
                    device, agent: agents[device.path.segments[3]], installationID: device.path.documentID)
            }
            return SubscriptionsAnswer(
                serverKey: serverKey.hex, installationID: nil, subscriptions: subscriptions.sorted(by: Self.byCwd),
                nextPageToken: nil)
        }
    }

    /// The server's devices holding `token` as an address of any service it can be
    /// one of, in that service's stored form (an APNs token in lower case).
    private func devices(withToken token: String, under serverKey: ServerKey) async throws -> [Document] {
        let filters = formats.all.compactMap { format in
            format.stored(token).map { FieldFilter.fieldEquals(format.documentField, .string($0)) }
        }
        var found: [DocumentPath: Document] = [:]
        for filter in filters {
            for device in try await store.documents(
                inGroup: NamespacePaths.devices, under: NamespacePaths.server(serverKey), where: filter)
            {
                found[device.path] = device
            }
        }
        return Array(found.values)
    }

    private static func subscription(_ device: Document, agent: Document?, installationID: String?)
        -> SubscriptionsAnswer.Subscription?
    {
        guard let agent, let cwd = agent.string(FieldName.cwd) else { return nil }
        return SubscriptionsAnswer.Subscription(
            cwd: cwd, agentKey: agent.path.documentID, agentDisplayName: agent.string(FieldName.agentDisplayName),
            installationID: installationID, since: device.string(FieldName.createdAt))
    }

    /// By cwd, then installation id, byte by byte.
    private static func byCwd(_ a: SubscriptionsAnswer.Subscription, _ b: SubscriptionsAnswer.Subscription) -> Bool {
        if a.cwd != b.cwd { return a.cwd.utf8.lexicographicallyPrecedes(b.cwd.utf8) }
        return (a.installationID ?? "").utf8.lexicographicallyPrecedes((b.installationID ?? "").utf8)
    }
}
