import Foundation
import Logging
import PushgateCore

/// `triggerReplyFinished`: notifies every device subscribed to one agent that a
/// reply is ready.
///
/// Reads the agent and its devices, composes one notification, fans it out, then in
/// one atomic write: touches the server, sets the agent's `lastTriggeredAt`, and
/// deletes the devices whose token the provider reported dead — only if the token
/// is still the one that failed, so a device that re-registered meanwhile is kept.
public struct TriggerReplyFinishedFunction: Sendable {
    private let store: any DocumentStore
    private let provider: any PushProvider
    private let fanOut: FanOut
    private let now: @Sendable () -> Date
    private let logger: Logger

    public init(
        store: any DocumentStore,
        provider: any PushProvider,
        fanOut: FanOut = FanOut(),
        now: @escaping @Sendable () -> Date = Date.init,
        logger: Logger
    ) {
        self.store = store
        self.provider = provider
        self.fanOut = fanOut
        self.now = now
        self.logger = logger
    }

    public func callAsFunction(
        secret: PushSecret,
        _ request: TriggerReplyFinishedRequest
    ) async throws -> TriggerReplyFinishedAnswer {
        let serverKey = secret.serverKey
        let agentKey = AgentKey(cwd: request.cwd)
        let agentPath = NamespacePaths.agent(agentKey, of: serverKey)

        async let agent = store.document(at: agentPath)
        async let deviceDocuments = store.documents(
            in: NamespacePaths.devices(of: agentKey, of: serverKey),
            selecting: DeviceRecord.fieldsRead
        )
        let devices = try await deviceDocuments.map(DeviceRecord.init(document:))
        let notification = Self.notification(
            for: request,
            displayName: try await agent?.string(FieldName.agentDisplayName),
            serverKey: serverKey,
            agentKey: agentKey
        )

        let targets = devices.compactMap { device in
            device.deliveryToken.map { DeliveryTarget(installationID: device.installationID, token: $0) }
        }
        let delivered = await fanOut.deliver(notification, to: targets, via: provider)
        let byInstallation = Dictionary(uniqueKeysWithValues: zip(targets.map(\.installationID), delivered))
        // Only a document edited by hand lacks a token; it is reported, not deleted.
        let outcomes = devices.map { byInstallation[$0.installationID] ?? .failed(reason: "MissingDeviceToken") }

        let timestamp = JSONValue.string(RFC3339.format(now()))
        var writes: [DocumentWrite] = [
            ServerTouch.write(serverKey, at: timestamp),
            // An agent nobody registered is not created by a trigger.
            .set(agentPath, [FieldName.lastTriggeredAt: .value(timestamp)], if: .exists),
        ]
        var removalWriteIndex: [Int: Int] = [:]  // device index → index of its delete in `writes`
        for (index, (device, outcome)) in zip(devices, outcomes).enumerated() {
            guard case .tokenInvalid = outcome, let token = device.deliveryToken else { continue }
            removalWriteIndex[index] = writes.count
            writes.append(.delete(device.path, if: .fieldEquals(token.fieldName, .string(token.value))))
        }
        let results = try await store.commit(writes)

        let responses = zip(devices, outcomes).enumerated().map { index, pair in
            let (device, outcome) = pair
            let removed = removalWriteIndex[index].map { results[$0].applied } ?? false
            return TriggerReplyFinishedAnswer.DeviceResponse(
                installationID: device.installationID,
                success: outcome.isDelivered,
                error: outcome.reason.map { .init(reason: $0, removed: removed) }
            )
        }
        let answer = TriggerReplyFinishedAnswer(
            serverKey: serverKey.hex,
            agentKey: agentKey.hex,
            deviceCount: devices.count,
            successCount: responses.count(where: \.success),
            failureCount: responses.count(where: { !$0.success }),
            removedCount: responses.count(where: { $0.error?.removed == true }),
            delivery: provider.deliveryName,
            configurationError: outcomes.lazy.compactMap(\.configurationErrorReason).first,
            responses: responses
        )
        logger.info(
            "reply-finished fan-out",
            metadata: [
                "agent": "\(agentKey.hex.prefix(12))",
                "devices": "\(answer.deviceCount)",
                "delivered": "\(answer.successCount)",
                "failed": "\(answer.failureCount)",
                "removed": "\(answer.removedCount)",
            ]
        )
        return answer
    }

    /// Title and body by the reply-finished rules; data `type`, `server_key`, `cwd`
    /// and `conversation_id` when given; collapse id = the agent key.
    static func notification(
        for request: TriggerReplyFinishedRequest,
        displayName: String?,
        serverKey: ServerKey,
        agentKey: AgentKey
    ) -> PushNotification {
        var data = ["type": "reply_finished", "server_key": serverKey.hex, "cwd": request.cwd]
        data["conversation_id"] = request.conversationID
        return PushNotification(
            title: ReplyNotificationComposer.title(displayName: displayName, cwd: request.cwd),
            body: ReplyNotificationComposer.body(preview: request.messagePreview),
            data: data,
            collapseID: agentKey.hex
        )
    }
}
