import Foundation
import PushgateCore

/// `unregisterSubscription`: removes one installation from one agent (the app turned
/// pushes off for that chat). Removing what is not there is not an error.
public struct UnregisterSubscriptionFunction: Sendable {
    public struct Answer: Sendable, Hashable, Encodable {
        public let serverKey: String
        public let agentKey: String
        public let installationID: String
        /// A device document was there and is gone.
        public let removed: Bool

        enum CodingKeys: String, CodingKey {
            case serverKey = "server_key"
            case agentKey = "agent_key"
            case installationID = "installation_id"
            case removed
        }
    }

    private let store: any DocumentStore
    private let now: @Sendable () -> Date

    public init(store: any DocumentStore, now: @escaping @Sendable () -> Date = Date.init) {
        self.store = store
        self.now = now
    }

    public func callAsFunction(secret: PushSecret, _ fields: RequestFields) async throws -> Answer {
        let cwd = try FieldRules.cwd(fields.requiredString("cwd"))
        let installationID = try FieldRules.installationID(fields.requiredString("installation_id"))
        let serverKey = secret.serverKey
        let agentKey = AgentKey(cwd: cwd)
        var writes = try await ServerPresence(store: store).writes(for: serverKey, at: now())
        writes.append(.delete(try NamespacePaths.device(installationID, of: agentKey, of: serverKey)))
        let results = try await store.commit(writes)
        return Answer(
            serverKey: serverKey.hex,
            agentKey: agentKey.hex,
            installationID: installationID,
            removed: results.last?.existed ?? false
        )
    }
}
