import Foundation
import PushgateCore

/// `unregisterSubscription`: removes one installation from one agent (the app turned
/// pushes off for that chat), or from every agent of the server when no `cwd` is
/// given (as `unregisterInstallation`). What was still to be sent to it for that
/// agent (pushes not yet made, reminders due later) is withdrawn in the same
/// transaction. Removing what is not there is not an error.
public struct UnregisterSubscriptionFunction: Sendable {
    private let store: any DocumentStore
    private let outbox: any OutboxWriting
    private let now: @Sendable () -> Date

    public init(store: any DocumentStore, outbox: any OutboxWriting, now: @escaping @Sendable () -> Date = Date.init) {
        self.store = store
        self.outbox = outbox
        self.now = now
    }

    public func callAsFunction(secret: PushSecret, _ request: UnregisterSubscriptionRequest) async throws
        -> UnregisterSubscriptionAnswer
    {
        let installationID = request.installationID
        let serverKey = secret.serverKey
        guard let cwd = request.cwd else {
            let everywhere = try await UnregisterInstallationFunction(store: store, outbox: outbox, now: now)(
                secret: secret, UnregisterInstallationRequest(installationID: installationID))
            return UnregisterSubscriptionAnswer(
                serverKey: serverKey.hex, agentKey: nil, installationID: installationID,
                removed: everywhere.removedCount > 0, deleted: everywhere.removedCount,
                cancelledDeliveries: everywhere.cancelledDeliveries)
        }
        let agentKey = AgentKey(cwd: cwd)
        let withdrawn = try await outbox.withdraw(
            DeliveryWithdrawal(
                serverKey: serverKey.hex, agentKey: agentKey.hex, installationID: installationID, at: now()),
            committing: [.delete(try NamespacePaths.device(installationID, of: agentKey, of: serverKey))])
        let removed = withdrawn.writes.first?.existed ?? false
        return UnregisterSubscriptionAnswer(
            serverKey: serverKey.hex, agentKey: agentKey.hex, installationID: installationID, removed: removed,
            deleted: removed ? 1 : 0, cancelledDeliveries: withdrawn.cancelled)
    }
}
