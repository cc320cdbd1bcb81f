import Foundation
import PushgateCore

/// A checked `triggerReplyFinished` body.
public struct TriggerReplyFinishedRequest: Sendable, Hashable {
    public let cwd: String
    public let conversationID: String?
    public let messagePreview: String?
    public let finishedAt: Date?
    /// `false`: answer `202` right after the notification is stored, without waiting
    /// for the first try.
    public let wait: Bool
    /// From the `Idempotency-Key` header: a repeat within 24 h does not notify again.
    public let idempotencyKey: String?

    /// Checks every field of the body (see `functions/triggerReplyFinished/`) and the
    /// `Idempotency-Key` header's value.
    public init(fields: RequestFields, idempotencyKey: String? = nil) throws(FunctionError) {
        cwd = try FieldRules.cwd(fields.requiredString("cwd"))
        conversationID = try fields.optionalString("conversation_id").map { id throws(FunctionError) in
            try FieldRules.text(id, field: "conversation_id", maxCharacters: 200)
        }
        messagePreview = try fields.optionalString("message_preview")
        finishedAt = try fields.optionalString("finished_at").map { text throws(FunctionError) in
            guard let date = RFC3339.parse(text) else {
                throw .invalidArgument("'finished_at' must be an RFC 3339 timestamp", field: "finished_at")
            }
            return date
        }
        wait = try fields.optionalBool("wait") ?? true
        if let idempotencyKey {
            guard (1...255).contains(idempotencyKey.utf8.count),
                idempotencyKey.utf8.allSatisfy({ (0x21...0x7E).contains($0) })
            else {
                throw .invalidArgument(
                    "the Idempotency-Key header must be 1 to 255 visible ASCII characters",
                    field: "Idempotency-Key"
                )
            }
        }
        self.idempotencyKey = idempotencyKey
    }

    /// What makes a repeat of this trigger recognisable: the `Idempotency-Key`
    /// header, else the conversation and the time its run finished (both needed).
    func idempotencyKey(agentKey: AgentKey) -> String? {
        if let idempotencyKey { return "header:" + idempotencyKey }
        guard let conversationID, let finishedAt else { return nil }
        return "reply:\(agentKey.hex):\(RFC3339.format(finishedAt)):" + conversationID
    }
}
