import Foundation
import PushgateCore

/// `unregisterInstallation`: removes one installation from every agent of the
/// caller's server (the user logged out or turned notifications off).
public struct UnregisterInstallationFunction: Sendable {
    public struct Answer: Sendable, Hashable, Encodable {
        public let serverKey: String
        public let installationID: String
        /// Device documents deleted, one per agent it followed.
        public let removedCount: Int

        enum CodingKeys: String, CodingKey {
            case serverKey = "server_key"
            case installationID = "installation_id"
            case removedCount = "removed_count"
        }
    }

    private let store: any DocumentStore
    private let now: @Sendable () -> Date

    public init(store: any DocumentStore, now: @escaping @Sendable () -> Date = Date.init) {
        self.store = store
        self.now = now
    }

    public func callAsFunction(secret: PushSecret, _ fields: RequestFields) async throws -> Answer {
        let installationID = try FieldRules.installationID(fields.requiredString("installation_id"))
        let serverKey = secret.serverKey
        let devices = try await store.documents(
            inGroup: NamespacePaths.devices,
            under: NamespacePaths.server(serverKey),
            where: .documentID(installationID)
        )
        var writes = try await ServerPresence(store: store).writes(for: serverKey, at: now())
        let first = writes.count
        writes += devices.map { DocumentWrite.delete($0.path, if: .exists) }
        let results = try await store.commit(writes)
        return Answer(
            serverKey: serverKey.hex,
            installationID: installationID,
            removedCount: results[first...].count(where: { $0.existed })
        )
    }
}
