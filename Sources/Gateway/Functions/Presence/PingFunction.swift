import Foundation
import PushgateCore

/// `ping` (GET): an app's onboarding check of a secret. A secret whose namespace
/// exists is answered with what it holds (agents, devices); any other is
/// `NOT_FOUND`, so that a mistyped secret is told apart from a right one. It writes
/// nothing: the app's calls do not make the agent side look connected.
public struct PingFunction: Sendable {
    private let store: any DocumentStore

    public init(store: any DocumentStore) {
        self.store = store
    }

    public func callAsFunction(secret: PushSecret) async throws -> PingAnswer {
        let serverKey = secret.serverKey
        guard let server = try await store.document(at: NamespacePaths.server(serverKey)) else {
            throw FunctionError(
                .notFound, "no server registered with this secret: register a subscription with it first")
        }
        let agents = try await store.documents(
            in: try NamespacePaths.server(serverKey).collection(NamespacePaths.agents), selecting: [])
        let deviceCounts = try await store.counts(
            in: try agents.map { try $0.path.collection(NamespacePaths.devices) })
        return PingAnswer(
            serverKey: serverKey.hex, agentCount: agents.count, deviceCount: deviceCounts.values.reduce(0, +),
            lastSeenAt: server.string(FieldName.lastSeenAt))
    }
}
