import PushgateCore
import PushgateSealing

/// `GET /replies` (issue 74): what the person answered in words that no agent waited
/// for — the wait was over, or a proxy's answerable trigger — and (issue 84) the
/// messages a paired phone sent the agent unasked (``SayToAgentFunction``), listed for
/// the agent's side, oldest first, and handed over once: an answer is marked read (a
/// conditional write each, so two callers at once never both list one, nor a waiting
/// `awaitDecision` and this call), a message removed (its conditional delete decides
/// who has it). With `wait`, a call that finds none is held until a message comes (an
/// answer does not wake it: its own wait usually takes it).
public struct RepliesFunction: Sendable {
    /// The most answers one call lists.
    public static let maxListed = 100

    private let store: any DocumentStore
    private let waits: DecisionWaits?
    /// The longest a call is held, whatever it asks (`PUSHGATE_MAX_DECISION_WAIT`).
    private let longestWait: Duration

    public init(store: any DocumentStore, waits: DecisionWaits? = nil, longestWait: Duration = .seconds(300)) {
        self.store = store
        self.waits = waits
        self.longestWait = longestWait
    }

    private struct Unread {
        let reply: RepliesAnswer.Reply
        let take: DocumentWrite
    }

    /// The caller going away ends the wait: the route cancels the call.
    public func callAsFunction(secret: PushSecret, _ request: RepliesRequest) async throws -> RepliesAnswer {
        let agent = AgentKey(cwd: request.cwd)
        let agentPath = NamespacePaths.agent(agent, of: secret.serverKey)
        let received = try await store.document(at: agentPath)?.fields[FieldName.messagesReceived]
        let listed = try await list(request, agent: agent, serverKey: secret.serverKey)
        guard listed.replies.isEmpty, request.wait > 0, request.kinds.contains(.message), let waits else {
            return listed
        }
        // Woken by a message kept since the count was read (a missing agent is woken by none).
        let limit = min(.seconds(request.wait), longestWait)
        _ = try await waits.wait(for: agentPath, serverKey: secret.serverKey.hex, upTo: limit) {
            $0.fields[FieldName.messagesReceived] != received
        }
        return try await list(request, agent: agent, serverKey: secret.serverKey)
    }

    private func list(_ request: RepliesRequest, agent: AgentKey, serverKey: ServerKey) async throws -> RepliesAnswer {
        var unread: [Unread] = []
        if request.kinds.contains(.answer) {
            let key = JSONValue.string(agent.hex)
            let records = try await store.documents(
                inGroup: NamespacePaths.events, under: NamespacePaths.server(serverKey),
                where: .fieldEquals(FieldName.unreadAnswerOf, key), after: nil, limit: nil)
            unread += records.compactMap { record in
                Self.reply(record, kind: .answer).map {
                    Unread(
                        reply: $0,
                        take: .set(
                            record.path, [FieldName.unreadAnswerOf: .delete],
                            if: .fieldEquals(FieldName.unreadAnswerOf, key)))
                }
            }
        }
        if request.kinds.contains(.message) {
            let kept = try await store.documents(
                in: NamespacePaths.messages(of: agent, of: serverKey), selecting: nil, after: nil,
                limit: SayToAgentFunction.maxUnread)
            unread += kept.compactMap { record in
                Self.reply(record, kind: .message).map { Unread(reply: $0, take: .delete(record.path, if: .exists)) }
            }
        }
        let oldestFirst = unread.sorted {
            ($0.reply.decidedAt, $0.reply.eventID) < ($1.reply.decidedAt, $1.reply.eventID)
        }
        let listed = oldestFirst.prefix(Self.maxListed)
        let taken = try await store.commit(listed.map(\.take))
        let replies = zip(listed, taken).compactMap { entry, result in result.applied ? entry.reply : nil }
        return RepliesAnswer(replies: replies, more: oldestFirst.count > listed.count)
    }

    /// The words a record holds; `nil` for one that is not whole.
    private static func reply(_ record: Document, kind: RepliesRequest.Kind) -> RepliesAnswer.Reply? {
        if kind == .answer, record.string(FieldName.decision) != SignedDecision.Decision.answer.rawValue {
            return nil
        }
        let decidedAt = record.string(kind == .answer ? FieldName.decidedAt : FieldName.createdAt)
        guard let eventID = record.string(FieldName.eventID), let message = record.string(FieldName.decisionMessage),
            let decidedBy = record.string(FieldName.decidedBy), let decidedAt
        else { return nil }
        var signedAt: Int64?
        if case .number(let seconds)? = record.fields[FieldName.decisionSignedAt] { signedAt = Int64(exactly: seconds) }
        return RepliesAnswer.Reply(
            kind: kind.rawValue, eventID: eventID, message: message, decidedBy: decidedBy, decidedAt: decidedAt,
            signedAt: signedAt, signature: record.string(FieldName.decisionSignature))
    }
}
