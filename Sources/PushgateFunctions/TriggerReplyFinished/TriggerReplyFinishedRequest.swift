import Foundation
import PushgateCore

/// A checked `triggerReplyFinished` body.
public struct TriggerReplyFinishedRequest: Sendable, Hashable {
    public let cwd: String
    public let conversationID: String?
    public let messagePreview: String?
    public let finishedAt: Date?

    /// Checks every field of the body (see `functions/triggerReplyFinished/`).
    public init(fields: RequestFields) throws(FunctionError) {
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
    }
}
