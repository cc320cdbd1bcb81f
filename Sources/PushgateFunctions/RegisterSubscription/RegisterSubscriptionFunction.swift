import Foundation
import PushgateCore

/// `registerSubscription`: subscribes one installation to one agent's pushes.
///
/// Upserts the server, agent and device documents in one atomic write, keeping
/// creation times. A registration sets the device's tokens to the ones it carries
/// (a token kind not sent is removed, so a stale token never outlives its
/// replacement); other optional fields not sent keep their stored value. When the
/// tokens are new, the same installation's devices under the server's other agents
/// get them too: one call rotates a token everywhere.
public struct RegisterSubscriptionFunction: Sendable {
    private let store: any DocumentStore
    private let now: @Sendable () -> Date

    public init(store: any DocumentStore, now: @escaping @Sendable () -> Date = Date.init) {
        self.store = store
        self.now = now
    }

    public func callAsFunction(
        secret: PushSecret,
        _ request: RegisterSubscriptionRequest
    ) async throws -> RegisterSubscriptionAnswer {
        let serverKey = secret.serverKey
        let agentKey = AgentKey(cwd: request.cwd)
        let now = self.now()
        let timestamp = JSONValue.string(RFC3339.format(now))
        let devicePath = try NamespacePaths.device(request.installationID, of: agentKey, of: serverKey)

        let tokenFields: [String: FieldValue] = [
            FieldName.apnsToken: request.apnsToken.map { .value(.string($0)) } ?? .delete,
            FieldName.fcmToken: request.fcmToken.map { .value(.string($0)) } ?? .delete,
        ]

        var agentFields: [String: FieldValue] = [
            FieldName.cwd: .value(.string(request.cwd)),
            FieldName.createdAt: .valueIfAbsent(timestamp),
            FieldName.updatedAt: .value(timestamp),
        ]
        agentFields[FieldName.agentDisplayName] = request.agentDisplayName.map { .value(.string($0)) }

        var deviceFields = tokenFields.merging([
            FieldName.platform: .value(.string(request.platform.rawValue)),
            FieldName.createdAt: .valueIfAbsent(timestamp),
            FieldName.updatedAt: .value(timestamp),
        ]) { current, _ in current }
        deviceFields[FieldName.appVersion] = request.appVersion.map { .value(.string($0)) }
        deviceFields[FieldName.bundleID] = request.bundleID.map { .value(.string($0)) }

        var writes = try await ServerPresence(store: store).writes(for: serverKey, at: now)
        let deviceWrite = writes.count + 1
        writes += [
            .set(NamespacePaths.agent(agentKey, of: serverKey), agentFields),
            .set(devicePath, deviceFields),
        ]
        writes += try await rotationWrites(
            for: request, skipping: devicePath, serverKey: serverKey, tokenFields: tokenFields, timestamp: timestamp)

        let results = try await store.commit(writes)
        return RegisterSubscriptionAnswer(
            serverKey: serverKey.hex,
            agentKey: agentKey.hex,
            installationID: request.installationID,
            created: !results[deviceWrite].existed
        )
    }

    /// Updates for the installation's devices under the server's other agents whose
    /// tokens differ from the new ones. `exists` keeps a device deleted meanwhile deleted.
    private func rotationWrites(
        for request: RegisterSubscriptionRequest,
        skipping devicePath: DocumentPath,
        serverKey: ServerKey,
        tokenFields: [String: FieldValue],
        timestamp: JSONValue
    ) async throws -> [DocumentWrite] {
        let siblings = try await store.documents(
            inGroup: NamespacePaths.devices,
            under: NamespacePaths.server(serverKey),
            where: .documentID(request.installationID)
        )
        return siblings.compactMap { device in
            guard device.path != devicePath,
                device.string(FieldName.apnsToken) != request.apnsToken
                    || device.string(FieldName.fcmToken) != request.fcmToken
            else { return nil }
            var fields = tokenFields
            fields[FieldName.updatedAt] = .value(timestamp)
            return .set(device.path, fields, if: .exists)
        }
    }
}
