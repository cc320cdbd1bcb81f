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
    /// From the `Idempotency-Key` header (prefixed): a repeat within 24 h does not notify again.
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
        self.idempotencyKey = try FieldRules.idempotencyKeyHeader(idempotencyKey)
    }

    /// The same trigger as an event of type `reply_finished`. A repeat is recognised
    /// by the `Idempotency-Key` header, else by the conversation and the time its run
    /// finished (both needed).
    public var trigger: TriggerRequest {
        let agentKey = AgentKey(cwd: cwd)
        var event = EventComposer.Event(type: .replyFinished, cwd: cwd)
        event.body = messagePreview
        if let conversationID { event.data["conversation_id"] = conversationID }
        var key = idempotencyKey
        if key == nil, let conversationID, let finishedAt {
            key = "reply:\(agentKey.hex):\(RFC3339.format(finishedAt)):" + conversationID
        }
        return TriggerRequest(event: event, occurredAt: finishedAt, idempotencyKey: key, wait: wait)
    }
}
