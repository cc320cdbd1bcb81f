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
        let page = try await InstallationPage.read(id, of: serverKey, page: request.page, in: store)
        let subscriptions = page.entries.compactMap { entry -> SubscriptionsAnswer.Subscription? in
            guard let agent = entry.agent, let cwd = agent.string(FieldName.cwd) else { return nil }
            return SubscriptionsAnswer.Subscription(
                cwd: cwd,
                agentKey: entry.agentKey.hex,
                agentDisplayName: agent.string(FieldName.agentDisplayName),
                since: entry.device.string(FieldName.createdAt)
            )
        }
        return SubscriptionsAnswer(
            serverKey: serverKey.hex,
            installationID: id,
            subscriptions: subscriptions.sorted { $0.cwd.utf8.lexicographicallyPrecedes($1.cwd.utf8) },
            nextPageToken: page.nextPageToken
        )
    }
}
