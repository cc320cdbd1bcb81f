import Foundation
import PushgateCore

/// `unregisterInstallation`: removes one installation from every agent of the
/// caller's server (the user logged out or turned notifications off), and in the
/// same transaction withdraws everything still to be sent to it — pushes not yet
/// made and reminders due later, under every agent (recorded `cancelled`) — and
/// forgets its badge count.
public struct UnregisterInstallationFunction: Sendable {
    private let store: any DocumentStore
    private let outbox: any OutboxWriting
    private let now: @Sendable () -> Date

    public init(store: any DocumentStore, outbox: any OutboxWriting, now: @escaping @Sendable () -> Date = Date.init) {
        self.store = store
        self.outbox = outbox
        self.now = now
    }

    public func callAsFunction(secret: PushSecret, _ request: UnregisterInstallationRequest) async throws
        -> UnregisterInstallationAnswer
    {
        let installationID = request.installationID
        let serverKey = secret.serverKey
        let devices = try await store.documents(
            inGroup: NamespacePaths.devices,
            under: NamespacePaths.server(serverKey),
            where: .documentID(installationID)
        )
        // Its badge goes too: a phone that logs in again starts from the approvals sent to it then.
        let withdrawn = try await outbox.withdraw(
            DeliveryWithdrawal(serverKey: serverKey.hex, agentKey: nil, installationID: installationID, at: now()),
            committing: devices.map { DocumentWrite.delete($0.path, if: .exists) }
                + [.delete(NamespacePaths.installation(installationID, serverKeyHex: serverKey.hex))])
        return UnregisterInstallationAnswer(
            serverKey: serverKey.hex,
            installationID: installationID,
            removedCount: withdrawn.writes.prefix(devices.count).count(where: { $0.existed }),
            cancelledDeliveries: withdrawn.cancelled
        )
    }
}
