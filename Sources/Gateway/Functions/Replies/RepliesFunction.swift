import PushgateCore
import PushgateSealing

/// `GET /replies` (issue 74): what the person answered in words that no agent waited
/// for — the wait was over, or a proxy's answerable trigger — listed for the agent's
/// side, oldest first, and marked read: each answer is handed over once, to this
/// call or to a waiting `awaitDecision`, whichever takes it first (a conditional
/// write each, so two callers at once never both list one).
public struct RepliesFunction: Sendable {
    /// The most answers one call lists.
    public static let maxListed = 100

    private let store: any DocumentStore

    public init(store: any DocumentStore) {
        self.store = store
    }

    public func callAsFunction(secret: PushSecret, _ request: RepliesRequest) async throws -> RepliesAnswer {
        let serverKey = secret.serverKey
        let agent = JSONValue.string(AgentKey(cwd: request.cwd).hex)
        let unread = try await store.documents(
            inGroup: NamespacePaths.events, under: NamespacePaths.server(serverKey),
            where: .fieldEquals(FieldName.unreadAnswerOf, agent), after: nil, limit: nil)
        let oldestFirst = unread.compactMap(Self.reply).sorted {
            ($0.reply.decidedAt, $0.reply.eventID) < ($1.reply.decidedAt, $1.reply.eventID)
        }
        let listed = oldestFirst.prefix(Self.maxListed)
        let taken = try await store.commit(
            listed.map {
                .set($0.path, [FieldName.unreadAnswerOf: .delete], if: .fieldEquals(FieldName.unreadAnswerOf, agent))
            })
        let replies = zip(listed, taken).compactMap { entry, result in result.applied ? entry.reply : nil }
        return RepliesAnswer(replies: replies, more: oldestFirst.count > listed.count)
    }

    /// The reply an answered event's record holds; `nil` for one that is not whole.
    private static func reply(_ record: Document) -> (path: DocumentPath, reply: RepliesAnswer.Reply)? {
        guard record.string(FieldName.decision) == SignedDecision.Decision.answer.rawValue,
            let eventID = record.string(FieldName.eventID), let message = record.string(FieldName.decisionMessage),
            let decidedBy = record.string(FieldName.decidedBy), let decidedAt = record.string(FieldName.decidedAt)
        else { return nil }
        return (
            record.path,
            RepliesAnswer.Reply(eventID: eventID, message: message, decidedBy: decidedBy, decidedAt: decidedAt)
        )
    }
}
