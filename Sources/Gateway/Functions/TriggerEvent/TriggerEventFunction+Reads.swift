import Foundation
import Logging
import PushgateCore
import PushgateDelivery
import PushgateLiveActivity

/// What a trigger reads before it decides (``TriggerReads``): the server, the
/// ordering state, the agent, its devices, the excluded installation's tokens.
extension TriggerEventFunction {
    /// Each read only when what was read before leaves it needed: for a server nobody
    /// registered, nothing more; for a stale event, the notification it may repeat.
    /// When the event may be paged, the agent's devices are counted first (an index
    /// range, once: the answer of a paged trigger uses the same count) and read only
    /// when the answer lists them, so that a big agent's devices are not read and
    /// parsed here to be read again by the pages.
    func read(_ request: TriggerRequest, serverKey: ServerKey, agentKey: AgentKey?) async throws -> TriggerReads {
        async let server = store.document(at: NamespacePaths.server(serverKey))
        async let lastOccurredAt = lastNotified(
            at: TriggerPlan.orderingState(of: request, agentKey: agentKey, serverKey: serverKey))
        var reads = TriggerReads(serverExists: try await server != nil, lastOccurredAt: try await lastOccurredAt)
        guard reads.serverExists else { return reads }
        if TriggerPlan.isStale(request, lastOccurredAt: reads.lastOccurredAt) {
            if let key = request.idempotencyKey {
                reads.earlierNotificationID = try await outbox.notificationID(
                    idempotencyKey: key, serverKey: serverKey.hex,
                    since: now().addingTimeInterval(-policy.idempotencyWindow.seconds))
            }
            return reads
        }
        async let agent = agentDocument(agentKey, of: serverKey)
        if let agentKey, TriggerPlan.mayExpand(request, agentKey: agentKey, rules: policy.triggerRules(worker.formats))
        {
            let count = try await store.count(in: NamespacePaths.devices(of: agentKey, of: serverKey), upTo: .max)
            reads.deviceCount = count
            if count <= policy.answerMaxDevices {
                // One more than the answer lists, should one register meanwhile, pages all the same.
                reads.devices = try await devices(
                    of: agentKey, serverKey: serverKey, only: request.selection, upTo: policy.answerMaxDevices + 1)
            }
        } else {
            reads.devices = try await devices(of: agentKey, serverKey: serverKey, only: request.selection)
        }
        let agentDocument = try await agent
        reads.agentDisplayName = agentDocument?.string(FieldName.agentDisplayName)
        reads.atKeyboardAt = agentDocument?.string(FieldName.atKeyboardAt).flatMap(RFC3339.parse)
        reads.activityState = agentDocument?.fields[FieldName.activityState].flatMap(AgentRunContentState.init(json:))
        if let agentKey, reads.activityState != nil, reads.deviceCount.map({ $0 > policy.answerMaxDevices }) == true,
            LiveActivityPlan.drives(request.event.type)
        {
            reads.activityDevices = try await devices(of: agentKey, serverKey: serverKey, only: request.selection)
        }
        reads.excludedTokens = try await tokensOfExcludedInstallation(
            request.selection, among: reads.devices, serverKey: serverKey)
        return reads
    }

    /// The agent's document (its display name); none for a server-wide event.
    func agentDocument(_ agentKey: AgentKey?, of serverKey: ServerKey) async throws -> Document? {
        guard let agentKey else { return nil }
        return try await store.document(at: NamespacePaths.agent(agentKey, of: serverKey))
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
                selecting: DeviceRecord.fieldsRead(worker.formats, activities: true),
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
    /// them among the agent's devices) or when no installation is excluded; for an
    /// agent paged (no devices read here) looked up all the same.
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
