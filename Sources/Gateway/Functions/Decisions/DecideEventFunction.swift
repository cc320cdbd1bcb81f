import Foundation
import Metrics
import PushgateCore
import PushgateDelivery
import PushgateSealing

/// `decideEvent` (issue 73): a phone answers an approval — allow or deny, and a
/// reason — or, in words, a question or an answerable reply (issue 74), signed by its
/// own decision key. Taken only when the event is pending in the namespace and takes
/// that decision (an event pushed as information takes none: 409 `not_awaited`), the installation was pushed it, its registered key
/// verifies the signature, and the signature is fresh (``SignedDecision/maxClockSkew``).
/// The first decision or resolution wins, atomically, whichever process takes it
/// (``EventResolution/claim(_:resolution:with:at:)``): a decision that came second is
/// 409 `already_decided`, one after a resolution 409 `already_resolved`. The winner
/// resolves the event (`allowed` / `denied` / `answered`: reminders withdrawn, badges
/// down, the other phones' pushes withdrawn, as `resolveEvent`) and is kept on the
/// event with its proof, for the waiting hook to check again; an answer also stays
/// unread for the agent's side (`GET /replies`).
public struct DecideEventFunction: Sendable {
    private let store: any DocumentStore
    private let outbox: any OutboxWriting & OutboxQueries
    private let resolution: EventResolution
    private let now: @Sendable () -> Date

    public init(
        store: any DocumentStore, outbox: any OutboxWriting & OutboxQueries, worker: DeliveryWorker,
        waits: DecisionWaits, policy: DeliveryPolicy = DeliveryPolicy(), now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.store = store
        self.outbox = outbox
        self.resolution = EventResolution(store: store, outbox: outbox, worker: worker, waits: waits, policy: policy)
        self.now = now
    }

    public func callAsFunction(secret: PushSecret, _ request: DecideEventRequest) async throws -> DecideEventAnswer {
        do {
            let answer = try await decide(secret: secret, request)
            Self.count(request.decision, outcome: "taken")
            return answer
        } catch let error as FunctionError {
            Self.count(request.decision, outcome: error.reason ?? error.code.rawValue.lowercased())
            throw error
        }
    }

    private func decide(secret: PushSecret, _ request: DecideEventRequest) async throws -> DecideEventAnswer {
        let serverKey = secret.serverKey
        let path = NamespacePaths.event(request.eventID, of: serverKey)
        guard let record = try await store.document(at: path) else {
            throw try await Self.noRecord(
                of: request, pushed: outbox.history(ofEvent: request.eventID, serverKey: serverKey.hex))
        }
        if let conflict = Self.conflict(record) { throw conflict }
        guard try await wasPushed(record, to: request.installationID) else { throw Self.notARecipient }
        guard let key = try await decisionKey(of: request.installationID, record: record, serverKey: serverKey) else {
            throw FunctionError(
                .permissionDenied, "this installation registered no decision_key", field: "installation_id",
                reason: "no_decision_key")
        }
        // After who may decide: a stranger learns nothing of the event from it.
        guard let kind = Self.kind(of: record) else { throw Self.notAwaited }
        guard kind.decisions.contains(request.decision) else {
            throw FunctionError(
                .invalidArgument,
                kind == .answer
                    ? "this event is answered in words: 'decision' must be answer"
                    : request.decision == .allowAlways
                        ? "this approval offers no \"always allow\": 'decision' must be allow or deny"
                        : "an approval is decided with allow or deny, not answer",
                field: "decision", reason: "wrong_decision")
        }
        // The one suggestion an approval offers is the first (index 0).
        if let suggestion = request.suggestion, suggestion != 0 {
            throw FunctionError(
                .invalidArgument, "this approval offers suggestion 0 only, not \(suggestion)", field: "suggestion",
                reason: "wrong_decision")
        }
        let now = self.now()
        try SignedDecisionFields.verify(request.signed(serverKey: serverKey), by: key, at: now, over: "this decision")
        let decidedAt = RFC3339.format(now)
        let outcome = EventResolution.resolution(of: request.decision)
        var fields: [String: FieldValue] = [
            FieldName.decision: .value(.string(request.decision.rawValue)),
            FieldName.decidedBy: .value(.string(request.installationID)),
            FieldName.decidedAt: .value(.string(decidedAt)),
            FieldName.decisionSignedAt: .value(.number(Double(request.signedAt))),
            FieldName.decisionSignature: .value(.string(request.signature)),
            FieldName.decisionKeyUsed: .value(.string(key.text)),
        ]
        fields[FieldName.decisionMessage] = request.message.map { .value(.string($0)) }
        fields[FieldName.decisionSuggestion] = request.suggestion.map { .value(.number(Double($0))) }
        if kind == .answer {
            // Kept for the agent's side until a wait or `GET /replies` hands it over.
            fields[FieldName.unreadAnswerOf] = .value(.string(record.string(FieldName.agentKey) ?? ""))
        }
        // The first decision or resolution wins, never both: the claim holds only where
        // neither is stored.
        switch try await resolution.claim(record, resolution: outcome, with: fields, at: now) {
        case .won:
            break
        case .decided(let settled), .resolved(let settled):
            throw Self.conflict(settled)
                ?? FunctionError(.aborted, "another answer came first", reason: "already_decided")
        }
        _ = try await resolution.finish(record, serverKey: serverKey, resolution: outcome, at: now)
        return DecideEventAnswer(
            eventID: request.eventID, decision: request.decision.rawValue, decidedBy: request.installationID,
            decidedAt: decidedAt)
    }

    /// The refusal of a decision on an event that kept no record: pushed as
    /// information (an event nobody decides, found by its deliveries: 409
    /// `not_awaited` for a phone it went to, issue 83), or unknown.
    private static func noRecord(of request: DecideEventRequest, pushed: [DeliveryHistory]) -> FunctionError {
        guard !pushed.isEmpty else {
            return FunctionError(.notFound, "no event with this event_id under this server", field: "event_id")
        }
        guard pushed.contains(where: { $0.installationID == request.installationID }) else {
            return notARecipient
        }
        return notAwaited
    }

    /// A decision from an installation the event's push never went to.
    static let notARecipient = FunctionError(
        .permissionDenied, "this installation was not sent this event", field: "installation_id",
        reason: "not_a_recipient")

    /// An event pushed as information: nobody waits for an answer to it.
    static let notAwaited = FunctionError(
        .aborted, "this event was pushed as information: nobody waits for an answer to it", reason: "not_awaited")

    /// What a phone can answer on the event `record` keeps; `nil`: nothing.
    static func kind(of record: Document) -> DecisionKind? {
        DecisionKind(
            type: record.string(FieldName.type), answerable: record.fields[FieldName.answerable] == .bool(true),
            offersAlways: record.string(FieldName.allowAlways) != nil)
    }

    /// The 409 for a record decided or resolved already; `nil` while it is pending.
    static func conflict(_ record: Document) -> FunctionError? {
        if let decision = record.string(FieldName.decision), let decidedAt = record.string(FieldName.decidedAt) {
            return FunctionError(
                .aborted, "this event was decided already: the first decision stands", reason: "already_decided",
                details: [
                    "decision": .string(decision), "decided_by": .string(record.string(FieldName.decidedBy) ?? ""),
                    "decided_at": .string(decidedAt),
                ])
        }
        if let resolution = record.string(FieldName.resolution) {
            return FunctionError(
                .aborted, "this event was resolved already (\(resolution))", reason: "already_resolved",
                details: ["resolution": .string(resolution)])
        }
        return nil
    }

    /// Whether the event's push went to `installationID` (its outbox delivery).
    private func wasPushed(_ record: Document, to installationID: String) async throws -> Bool {
        guard let notificationID = record.string(FieldName.notificationID) else { return false }
        return try await outbox.statuses(of: notificationID).contains { $0.installationID == installationID }
    }

    /// The decision key the installation registered: on its device under the event's
    /// agent, or, for an event to the whole server, under any agent.
    private func decisionKey(of installationID: String, record: Document, serverKey: ServerKey) async throws
        -> DecisionKey?
    {
        let devices: [Document]
        if let agent = record.string(FieldName.agentKey), SHA256Hex.isDigest(agent) {
            devices = try await store.documents(
                at: [try NamespacePaths.device(installationID, of: AgentKey(hex: agent), of: serverKey)])
        } else {
            devices = try await store.documents(
                inGroup: NamespacePaths.devices, under: NamespacePaths.server(serverKey),
                where: .documentIDIn([installationID]))
        }
        return devices.lazy.compactMap { $0.string(FieldName.decisionKey).flatMap(DecisionKey.init) }.first
    }

    /// `pushgate_decisions_total{decision, outcome}`: taken, or why not.
    private static func count(_ decision: SignedDecision.Decision, outcome: String) {
        Counter(label: "pushgate_decisions_total", dimensions: [("decision", decision.rawValue), ("outcome", outcome)])
            .increment()
    }
}
