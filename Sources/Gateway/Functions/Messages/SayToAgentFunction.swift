import Foundation
import PushgateCore
import PushgateSealing

/// `sayToAgent` (issue 84): words a person sends a running agent from a paired phone,
/// unasked. Taken when the installation is subscribed to the agent with a decision
/// key, its signature verifies over `say:<agent_key>` and the words, and it is fresh
/// (``SignedDecision/maxClockSkew``). Kept under the agent until its side reads them
/// (`GET /replies`: `pushgate channel` long-polls it and hands them to Claude Code, or
/// any caller lists them), then removed; a waiting `GET /replies` hears of them at once,
/// in this process or another on the same database (``DecisionWaits``). The agent's
/// side checks the signature again against its own pins before it hears a word.
public struct SayToAgentFunction: Sendable {
    /// The most messages an agent keeps unread: one more is 429.
    public static let maxUnread = 100

    private let store: any DocumentStore
    private let waits: DecisionWaits
    private let now: @Sendable () -> Date

    public init(store: any DocumentStore, waits: DecisionWaits, now: @escaping @Sendable () -> Date = Date.init) {
        self.store = store
        self.waits = waits
        self.now = now
    }

    /// The answer: the message kept, when, and whether it was kept already (the same
    /// signed message sent again: a phone retrying after a lost answer).
    public struct Answer: Sendable, Hashable, Encodable {
        public let ok = true
        public let messageID: String
        public let sentAt: String
        public let repeated: Bool
    }

    public func callAsFunction(secret: PushSecret, _ request: SayToAgentRequest) async throws -> Answer {
        let serverKey = secret.serverKey
        let agent = AgentKey(cwd: request.cwd)
        let devicePath = try NamespacePaths.device(request.installationID, of: agent, of: serverKey)
        guard let device = try await store.document(at: devicePath) else {
            throw FunctionError(
                .permissionDenied, "this installation is not subscribed to this agent", field: "installation_id",
                reason: "not_subscribed")
        }
        guard let key = device.string(FieldName.decisionKey).flatMap(DecisionKey.init) else {
            throw FunctionError(
                .permissionDenied, "this installation registered no decision_key", field: "installation_id",
                reason: "no_decision_key")
        }
        let now = self.now()
        try SignedDecisionFields.verify(
            request.signed(serverKey: serverKey), by: key, at: now, over: "this message to this agent")
        let path = NamespacePaths.message(request.messageID, of: agent, of: serverKey)
        if let kept = try await store.document(at: path) { return try Self.repeated(kept, of: request) }
        let messages = NamespacePaths.messages(of: agent, of: serverKey)
        guard try await store.count(in: messages, upTo: Self.maxUnread) < Self.maxUnread else {
            throw FunctionError(
                .resourceExhausted,
                "this agent keeps \(Self.maxUnread) unread messages, the most it may: nobody reads them now",
                retryAfter: 30, reason: "too_many_unread")
        }
        let sentAt = RFC3339.format(now)
        let agentPath = NamespacePaths.agent(agent, of: serverKey)
        let results = try await store.commit([
            .set(
                path,
                [
                    FieldName.eventID: .value(.string(request.messageID)),
                    FieldName.decidedBy: .value(.string(request.installationID)),
                    FieldName.decisionMessage: .value(.string(request.message)),
                    FieldName.decisionSignedAt: .value(.number(Double(request.signedAt))),
                    FieldName.decisionSignature: .value(.string(request.signature)),
                    FieldName.decisionKeyUsed: .value(.string(key.text)),
                    FieldName.createdAt: .value(.string(sentAt)),
                ], merge: false, if: .absent),
            .set(agentPath, [FieldName.messagesReceived: .increment(1, floor: nil)], if: .exists),
        ])
        guard results.first?.applied == true else {
            // Another call kept the same id between the read and this write.
            guard let kept = try await store.document(at: path) else { throw Self.taken }
            return try Self.repeated(kept, of: request)
        }
        await waits.settled(at: agentPath)
        return Answer(messageID: request.messageID, sentAt: sentAt, repeated: false)
    }

    /// The answer to a message whose id is kept already: the same signed message is a
    /// repeat, anything else a conflict.
    private static func repeated(_ kept: Document, of request: SayToAgentRequest) throws -> Answer {
        guard kept.string(FieldName.decisionSignature) == request.signature,
            kept.string(FieldName.decidedBy) == request.installationID
        else { throw taken }
        return Answer(messageID: request.messageID, sentAt: kept.string(FieldName.createdAt) ?? "", repeated: true)
    }

    private static let taken = FunctionError(
        .aborted, "another message was sent under this message_id: make a new one", field: "message_id",
        reason: "message_id_taken")
}
