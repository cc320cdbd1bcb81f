import Foundation
import PushgateCore
import PushgateDelivery

/// `registerActivity` (issue 64): records the update token of the Live Activity an
/// installation runs for one agent — what ActivityKit's `pushTokenUpdates` hands the
/// app once the activity started, and again whenever it rotates — on the device
/// document under that agent, replacing the agent's previous one there. The
/// installation must be subscribed to the agent (`registerSubscription` first):
/// an activity's token is never where no device is.
///
/// A token that arrives after its run ended (the start reached the phone late, or
/// the app registered late: no run in progress, and the last one ended within the
/// dismissal time, `activityEndedAt`) is that run's: it is not kept, and the activity
/// is sent its end at once (dismissed at once), so it never stays on the lock screen
/// for hours (issue 72). An agent whose side sends no run events has no ended run:
/// a token registered for an activity the app started itself is kept as before.
public struct RegisterActivityFunction: Sendable {
    private let store: any DocumentStore
    private let worker: DeliveryWorker
    private let policy: DeliveryPolicy
    private let now: @Sendable () -> Date

    public init(
        store: any DocumentStore, worker: DeliveryWorker, policy: DeliveryPolicy,
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.store = store
        self.worker = worker
        self.policy = policy
        self.now = now
    }

    public func callAsFunction(secret: PushSecret, _ request: RegisterActivityRequest) async throws
        -> RegisterActivityAnswer
    {
        let serverKey = secret.serverKey
        let agentKey = AgentKey(cwd: request.cwd)
        let devicePath = try NamespacePaths.device(request.installationID, of: agentKey, of: serverKey)
        let agentPath = NamespacePaths.agent(agentKey, of: serverKey)
        let now = self.now()
        let fields: [String: FieldValue] = [
            FieldName.activityToken: .value(.string(request.activityToken)),
            FieldName.activityRunID: request.runID.map { .value(.string($0)) } ?? .delete,
            FieldName.activityRegisteredAt: .value(.string(RFC3339.format(now))),
        ]
        let endedWithin = policy.activity.dismissAfter.seconds
        let formats = worker.formats
        let committed = try await store.runTransaction { transaction in
            let read = try transaction.documents(at: [devicePath, agentPath])
            guard let device = read.first(where: { $0.path == devicePath }) else {
                throw FunctionError(
                    .notFound, "this installation is not subscribed to this agent: register the subscription first",
                    field: "installation_id")
            }
            let agent = read.first { $0.path == agentPath }
            if agent?.fields[FieldName.activityState] == nil,
                let ended = agent?.string(FieldName.activityEndedAt).flatMap(RFC3339.parse),
                now.timeIntervalSince(ended) <= endedWithin
            {
                return ([], Registration.runOver(DeviceRecord(document: device, formats: formats)))
            }
            let earlier = device.string(FieldName.activityToken)
            return (
                [.set(devicePath, fields, if: .exists)],
                Registration.kept(replaced: earlier != nil && earlier != request.activityToken)
            )
        }
        switch committed.outcome {
        case .kept(let replaced):
            return RegisterActivityAnswer(
                serverKey: serverKey.hex, agentKey: agentKey.hex, installationID: request.installationID,
                replaced: replaced, ended: false)
        case .runOver(let device):
            try await sendEnd(
                to: device, token: request.activityToken, serverKey: serverKey, agentKey: agentKey, now: now)
            return RegisterActivityAnswer(
                serverKey: serverKey.hex, agentKey: agentKey.hex, installationID: request.installationID,
                replaced: false, ended: true)
        }
    }

    /// What the transaction found.
    private enum Registration: Sendable {
        case kept(replaced: Bool)
        /// The agent's run is over: `device`'s activity is ended rather than kept.
        case runOver(DeviceRecord)
    }

    /// Stores (and starts) the end of the activity whose token is `token`.
    private func sendEnd(to device: DeviceRecord, token: String, serverKey: ServerKey, agentKey: AgentKey, now: Date)
        async throws
    {
        guard let carrier = worker.formats.liveActivities else { return }
        let id = RandomUUID.make()
        let end = try LiveActivityPlan.lateEnd(
            to: device, token: DeviceToken(kind: carrier.service, value: token), notificationID: id, now: now)
        var content = PushNotification(
            title: "", body: "", data: ["type": "run_ended", "server_key": .string(serverKey.hex)], collapseID: "",
            sound: "")
        content.liveActivity = end.push
        let notification = OutboxNotification(
            id: id, serverKey: serverKey.hex, agentKey: agentKey.hex, content: content, createdAt: now,
            expiresAt: now.addingTimeInterval(policy.activity.dismissAfter.seconds))
        _ = try await worker.submit(EnqueueRequest(notification, deliveries: [end.delivery]))
    }
}
