import Foundation
import PushgateCore

/// A checked `triggerReplyFinished` body: seed 003's fields and what the CodeAgents
/// app and proxy send today (see `functions/triggerReplyFinished/`).
public struct TriggerReplyFinishedRequest: Sendable, Hashable {
    public let cwd: String
    public let conversationID: String?
    public let messagePreview: String?
    public let finishedAt: Date?
    /// `include_preview`; `nil` when absent (the proxy, older apps).
    public let includePreview: Bool?
    /// For the app's unread logic, sent to the devices as strings: `renderable_assistant_count`,
    /// `assistant_message_cursor`, `cursor_version` (only with a cursor), `completion_id`.
    public let appData: [String: String]
    public let completionID: String?
    public let selection: DeviceSelection
    /// `false`: answer `202` right after the notification is stored, without waiting
    /// for the first try.
    public let wait: Bool
    /// From the `Idempotency-Key` header (prefixed): a repeat within 24 h does not notify again.
    public let idempotencyKey: String?
    /// `answerable`: the person can answer the reply in words from the lock screen
    /// (issue 74); the answer then names the event's id.
    public let answerable: Bool
    /// `event_id` (issue 82): the id the agent's side made for the answer it waits for;
    /// a repeat of it within 24 h is a duplicate, as `triggerEvent`'s.
    public let eventID: String?

    /// Checks every field of the body and the `Idempotency-Key` header's value.
    /// The app's counts are taken as JSON numbers or decimal strings and ignored
    /// otherwise, as the production gateway does.
    public init(fields: RequestFields, idempotencyKey: String? = nil) throws(FunctionError) {
        cwd = try FieldRules.cwd(fields.requiredString("cwd"))
        conversationID = try fields.optionalString("conversation_id").map { id throws(FunctionError) in
            try FieldRules.text(id, field: "conversation_id", maxCharacters: 200)
        }
        messagePreview = try fields.optionalString("message_preview", multiline: true)
        finishedAt = try fields.optionalTimestamp("finished_at")
        includePreview = try fields.optionalBool("include_preview")
        completionID = try fields.optionalString("completion_id").map { id throws(FunctionError) in
            try FieldRules.text(id, field: "completion_id", maxCharacters: 128)
        }.flatMap { $0.isEmpty ? nil : $0 }
        var appData: [String: String] = [:]
        for name in ["renderable_assistant_count", "assistant_message_cursor"] {
            appData[name] = fields.lenientCount(name).map(String.init)
        }
        if appData["assistant_message_cursor"] != nil {
            appData["cursor_version"] = fields.lenientCount("cursor_version").map(String.init)
        }
        appData["completion_id"] = completionID
        self.appData = appData
        let excludedInstallation = try fields.optionalString("exclude_installation_id").flatMap {
            id throws(FunctionError) in
            id.isEmpty ? nil : try FieldRules.installationID(id, field: "exclude_installation_id")
        }
        // Compared with stored tokens only: a value no token can equal excludes nothing.
        let excludedToken = try fields.optionalString("exclude_fcm_token", multiline: true).flatMap { token in
            let trimmed = token.trimmingCharacters(in: .whitespacesAndNewlines)
            return trimmed.isEmpty ? nil : trimmed
        }
        selection = DeviceSelection(
            excludedInstallationID: excludedInstallation, excludedTokens: Set([excludedToken].compactMap { $0 }))
        wait = try fields.optionalBool("wait") ?? true
        answerable = try fields.optionalBool("answerable") ?? false
        eventID = try fields.optionalString("event_id").map { id throws(FunctionError) in
            guard !id.isEmpty else { throw .invalidArgument("'event_id' must not be empty", field: "event_id") }
            return try FieldRules.text(id, field: "event_id", maxCharacters: 200)
        }
        self.idempotencyKey = try FieldRules.idempotencyKeyHeader(idempotencyKey)
    }

    /// The same trigger as an event of type `reply_finished`. A repeat is recognised
    /// by the `Idempotency-Key` header, else by the event id, else by the completion id, else by the
    /// conversation and the time its run finished (both needed). Only a reply of the
    /// same conversation can make one stale: `finished_at` orders a conversation's
    /// replies, never two conversations'.
    public var trigger: TriggerRequest {
        let agentKey = AgentKey(cwd: cwd)
        var event = EventComposer.Event(type: .replyFinished, cwd: cwd)
        event.body = messagePreview
        // Strings, as the production gateway sends them and the app reads them.
        event.data = appData.mapValues(JSONValue.string)
        if let conversationID { event.data["conversation_id"] = .string(conversationID) }
        event.answerable = answerable
        event.eventID = eventID
        var key = idempotencyKey ?? eventID.map { "event:" + $0 }
        if key == nil, let completionID {
            key = "reply:\(agentKey.hex):completion:" + completionID
        }
        if key == nil, let conversationID, let finishedAt {
            key = "reply:\(agentKey.hex):\(RFC3339.format(finishedAt)):" + conversationID
        }
        return TriggerRequest(
            event: event, occurredAt: finishedAt, ordering: conversationID.map(TriggerRequest.Ordering.byKey) ?? .none,
            idempotencyKey: key, includePreview: includePreview, selection: selection, wait: wait)
    }
}
