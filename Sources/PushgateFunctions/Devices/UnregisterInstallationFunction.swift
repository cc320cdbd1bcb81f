import PushgateCore

/// `unregisterInstallation`: removes one installation from every agent of the
/// caller's server (the user logged out or turned notifications off).
public struct UnregisterInstallationFunction: Sendable {
    private let store: any DocumentStore

    public init(store: any DocumentStore) {
        self.store = store
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
        let results = try await store.commit(devices.map { DocumentWrite.delete($0.path, if: .exists) })
        return UnregisterInstallationAnswer(
            serverKey: serverKey.hex,
            installationID: installationID,
            removedCount: results.count(where: { $0.existed })
        )
    }
}
