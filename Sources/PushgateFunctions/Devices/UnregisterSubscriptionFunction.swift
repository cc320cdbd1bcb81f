import PushgateCore

/// `unregisterSubscription`: removes one installation from one agent (the app turned
/// pushes off for that chat), or from every agent of the server when no `cwd` is
/// given (as `unregisterInstallation`). Removing what is not there is not an error.
public struct UnregisterSubscriptionFunction: Sendable {
    private let store: any DocumentStore

    public init(store: any DocumentStore) {
        self.store = store
    }

    public func callAsFunction(secret: PushSecret, _ request: UnregisterSubscriptionRequest) async throws
        -> UnregisterSubscriptionAnswer
    {
        let installationID = request.installationID
        let serverKey = secret.serverKey
        guard let cwd = request.cwd else {
            let everywhere = try await UnregisterInstallationFunction(store: store)(
                secret: secret, UnregisterInstallationRequest(installationID: installationID))
            return UnregisterSubscriptionAnswer(
                serverKey: serverKey.hex, agentKey: nil, installationID: installationID,
                removed: everywhere.removedCount > 0, deleted: everywhere.removedCount)
        }
        let agentKey = AgentKey(cwd: cwd)
        let results = try await store.commit([
            .delete(try NamespacePaths.device(installationID, of: agentKey, of: serverKey))
        ])
        let removed = results.first?.existed ?? false
        return UnregisterSubscriptionAnswer(
            serverKey: serverKey.hex, agentKey: agentKey.hex, installationID: installationID, removed: removed,
            deleted: removed ? 1 : 0)
    }
}
