import Foundation
import Logging
import PushgateCore
import PushgateDelivery

/// What a trigger reads before it plans: the agent, its devices, the ordering state,
/// the excluded installation's tokens.
extension TriggerEventFunction {
    /// The agent's document (its display name); none for a server-wide event.
    func agentDocument(_ agentKey: AgentKey?, of serverKey: ServerKey) async throws -> Document? {
        guard let agentKey else { return nil }
        return try await store.document(at: NamespacePaths.agent(agentKey, of: serverKey))
    }

    /// Whether the agent has `limit` devices or more, counted no further than that.
    func hasDevices(_ agentKey: AgentKey?, of serverKey: ServerKey, atLeast limit: Int) async throws -> Bool {
        guard let agentKey else { return false }
        return try await store.count(in: NamespacePaths.devices(of: agentKey, of: serverKey), upTo: limit) >= limit
    }

    /// The devices a trigger chooses from: the agent's (one read of its collection),
    /// or for a server-wide event the server's under every agent (one collection-group
    /// read), in installation-id order; only one installation's when the trigger names it.
    /// An agent's, at most `limit`.
    func devices(
        of agentKey: AgentKey?, serverKey: ServerKey, only selection: DeviceSelection, upTo limit: Int? = nil
    ) async throws -> [DeviceRecord] {
        switch (agentKey, selection.onlyInstallationID) {
        case (let agentKey?, let installationID?):
            return try await store.document(at: NamespacePaths.device(installationID, of: agentKey, of: serverKey))
                .map { [DeviceRecord(document: $0, formats: worker.formats)] } ?? []
        case (let agentKey?, nil):
            return try await store.documents(
                in: NamespacePaths.devices(of: agentKey, of: serverKey),
                selecting: DeviceRecord.fieldsRead(worker.formats),
                after: nil, limit: limit
            ).map { DeviceRecord(document: $0, formats: worker.formats) }
        case (nil, _):
            break
        }
        return DeviceRecord.byInstallation(
            try await store.documents(
                inGroup: NamespacePaths.devices, under: NamespacePaths.server(serverKey),
                where: selection.onlyInstallationID.map(FieldFilter.documentID) ?? .everyDocument
            ).map { DeviceRecord(document: $0, formats: worker.formats) })
    }

    /// The time of the last event notified in a request's ordering scope.
    func lastNotified(at orderingState: DocumentPath?) async throws -> Date? {
        guard let orderingState else { return nil }
        return try await store.document(at: orderingState)?.string(FieldName.lastOccurredAt).flatMap(RFC3339.parse)
    }

    /// The stored tokens of the installation the caller excludes when it does not
    /// follow this agent (its tokens under the server's other agents): the phone is
    /// left out all the same. Empty when it follows the agent (the selection finds
    /// them among the agent's devices) or when no installation is excluded.
    func tokensOfExcludedInstallation(
        _ selection: DeviceSelection, among devices: [DeviceRecord], serverKey: ServerKey
    ) async throws -> [String] {
        guard let id = selection.excludedInstallationID, !devices.contains(where: { $0.installationID == id }) else {
            return []
        }
        return try await store.documents(
            inGroup: NamespacePaths.devices, under: NamespacePaths.server(serverKey), where: .documentID(id)
        ).flatMap { DeviceRecord(document: $0, formats: worker.formats).tokens }
    }
}
