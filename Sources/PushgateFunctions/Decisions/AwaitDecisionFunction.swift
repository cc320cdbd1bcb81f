import Foundation
import PushgateCore

/// `awaitDecision` (issue 73): answers the moment the approval is decided or
/// resolved, else when its wait ends — what the waiting hook long-polls. A decision
/// made through another process on the same database wakes it as soon as that
/// process announces it (``DecisionWaits``).
public struct AwaitDecisionFunction: Sendable {
    private let store: any DocumentStore
    private let waits: DecisionWaits
    /// The longest a call is held, whatever it asks (`PUSHGATE_MAX_DECISION_WAIT`).
    private let longestWait: Duration

    public init(store: any DocumentStore, waits: DecisionWaits, longestWait: Duration = .seconds(300)) {
        self.store = store
        self.waits = waits
        self.longestWait = longestWait
    }

    /// The caller going away ends the wait: the route cancels the call.
    public func callAsFunction(secret: PushSecret, _ request: AwaitDecisionRequest) async throws
        -> AwaitDecisionAnswer
    {
        let serverKey = secret.serverKey
        let path = NamespacePaths.event(request.eventID, of: serverKey)
        guard let record = try await store.document(at: path) else {
            throw FunctionError(.notFound, "no approval with this event_id under this server", field: "event_id")
        }
        guard !DecisionWaits.isSettled(record), request.wait > 0 else { return AwaitDecisionAnswer(record) }
        let settled = try await waits.wait(
            for: path, serverKey: serverKey.hex, upTo: min(.seconds(request.wait), longestWait))
        if let settled { return AwaitDecisionAnswer(settled) }
        // The wait ended (or the caller left): what the record says now.
        return AwaitDecisionAnswer(try await store.document(at: path) ?? record)
    }
}
