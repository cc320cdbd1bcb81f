import Foundation
import PushgateCore

/// `registerActivity` (issue 64): records the update token of the Live Activity an
/// installation runs for one agent — what ActivityKit's `pushTokenUpdates` hands the
/// app once the activity started, and again whenever it rotates — on the device
/// document under that agent, replacing the agent's previous one there. The
/// installation must be subscribed to the agent (`registerSubscription` first):
/// an activity's token is never where no device is.
public struct RegisterActivityFunction: Sendable {
    private let store: any DocumentStore
    private let now: @Sendable () -> Date

    public init(store: any DocumentStore, now: @escaping @Sendable () -> Date = Date.init) {
        self.store = store
        self.now = now
    }

    public func callAsFunction(secret: PushSecret, _ request: RegisterActivityRequest) async throws
        -> RegisterActivityAnswer
    {
        let serverKey = secret.serverKey
        let agentKey = AgentKey(cwd: request.cwd)
        let devicePath = try NamespacePaths.device(request.installationID, of: agentKey, of: serverKey)
        let fields: [String: FieldValue] = [
            FieldName.activityToken: .value(.string(request.activityToken)),
            FieldName.activityRunID: request.runID.map { .value(.string($0)) } ?? .delete,
            FieldName.activityRegisteredAt: .value(.string(RFC3339.format(now()))),
        ]
        let committed = try await store.runTransaction { transaction in
            guard let device = try transaction.documents(at: [devicePath]).first else {
                throw FunctionError(
                    .notFound, "this installation is not subscribed to this agent: register the subscription first",
                    field: "installation_id")
            }
            let earlier = device.string(FieldName.activityToken)
            return ([.set(devicePath, fields, if: .exists)], earlier != nil && earlier != request.activityToken)
        }
        return RegisterActivityAnswer(
            serverKey: serverKey.hex, agentKey: agentKey.hex, installationID: request.installationID,
            replaced: committed.outcome)
    }
}
