import Foundation
import PushgateCore

/// `heartbeat` (POST) and `ping` (GET): the cheapest authenticated calls. A proxy
/// calls `heartbeat` to show it is connected; an app calls `ping` while onboarding
/// to check a secret. Both refresh `lastSeenAt` like every call.
public struct HeartbeatFunction: Sendable {
    private let store: any DocumentStore
    private let now: @Sendable () -> Date

    public init(store: any DocumentStore, now: @escaping @Sendable () -> Date = Date.init) {
        self.store = store
        self.now = now
    }

    public func callAsFunction(secret: PushSecret) async throws -> HeartbeatAnswer {
        let serverKey = secret.serverKey
        try await ServerPresence(store: store).touch(serverKey, at: now())
        let server = try await store.document(at: NamespacePaths.server(serverKey))
        return HeartbeatAnswer(serverKey: serverKey.hex, lastSeenAt: server?.string(FieldName.lastSeenAt))
    }
}
