import Foundation
import PushgateCore

/// `heartbeat` (POST): the agent side's cheapest call, to show it is connected. It
/// refreshes the server's `lastSeenAt` and, when it names a `source`, that source's;
/// for a secret never registered it writes nothing.
public struct HeartbeatFunction: Sendable {
    private let presence: ServerPresence
    private let store: any DocumentStore
    private let now: @Sendable () -> Date

    public init(
        store: any DocumentStore, presence: PresencePolicy = PresencePolicy(),
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.store = store
        self.presence = ServerPresence(store: store, policy: presence)
        self.now = now
    }

    public func callAsFunction(secret: PushSecret, _ request: HeartbeatRequest = HeartbeatRequest()) async throws
        -> HeartbeatAnswer
    {
        let serverKey = secret.serverKey
        try await presence.touch(serverKey, at: now(), source: request.source)
        let server = try await store.document(at: NamespacePaths.server(serverKey))
        return HeartbeatAnswer(
            serverKey: serverKey.hex, lastSeenAt: server?.string(FieldName.lastSeenAt), source: request.source)
    }
}
