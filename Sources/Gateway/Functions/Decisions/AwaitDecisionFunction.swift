import Foundation
import PushgateCore

/// `awaitDecision` (issue 73): answers the moment the approval is decided (or the
/// question answered, issue 74) or resolved, else when its wait ends — what the waiting hook long-polls. A decision
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
            throw FunctionError(.notFound, "no event with this event_id under this server", field: "event_id")
        }
        guard !DecisionWaits.isSettled(record), request.wait > 0 else { return try await handOver(record) }
        let settled = try await waits.wait(
            for: path, serverKey: serverKey.hex, upTo: min(.seconds(request.wait), longestWait))
        if let settled { return try await handOver(settled) }
        // The wait ended (or the caller left): what the record says now.
        return try await handOver(try await store.document(at: path) ?? record)
    }

    /// The answer for `record`; an answer in words it carries is then read (issue
    /// 74): the agent that waited has it, and `GET /replies` lists it no more.
    private func handOver(_ record: Document) async throws -> AwaitDecisionAnswer {
        if let agent = record.fields[FieldName.unreadAnswerOf] {
            try await store.commit([
                .set(
                    record.path, [FieldName.unreadAnswerOf: .delete], if: .fieldEquals(FieldName.unreadAnswerOf, agent))
            ])
        }
        return AwaitDecisionAnswer(record)
    }
}
