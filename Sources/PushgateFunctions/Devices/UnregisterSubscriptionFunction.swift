import Foundation
import PushgateCore

/// `unregisterSubscription`: removes one installation from one agent (the app turned
/// pushes off for that chat). Removing what is not there is not an error.
public struct UnregisterSubscriptionFunction: Sendable {
    private let store: any DocumentStore
    private let now: @Sendable () -> Date

    public init(store: any DocumentStore, now: @escaping @Sendable () -> Date = Date.init) {
        self.store = store
        self.now = now
    }

    public func callAsFunction(secret: PushSecret, _ request: UnregisterSubscriptionRequest) async throws
        -> UnregisterSubscriptionAnswer
    {
        let installationID = request.installationID
        let serverKey = secret.serverKey
        let agentKey = AgentKey(cwd: request.cwd)
        var writes = try await ServerPresence(store: store).writes(for: serverKey, at: now())
        writes.append(.delete(try NamespacePaths.device(installationID, of: agentKey, of: serverKey)))
        let results = try await store.commit(writes)
        return UnregisterSubscriptionAnswer(
            serverKey: serverKey.hex,
            agentKey: agentKey.hex,
            installationID: installationID,
            removed: results.last?.existed ?? false
        )
    }
}
