import Foundation
import PushgateAgentHooks
import PushgateCore

/// A question the agent's side asks a person and waits on (issue 82): the event id it
/// made itself (``QuestionID``, 128 random bits) and sends as the trigger's
/// `event_id`, what may answer it, and when it was asked. Only a decision signed for
/// exactly this id, after this moment, answers it.
public struct Question: Sendable, Equatable {
    public let eventID: String
    public let kind: DecisionKind
    public let askedAt: Date
    /// The permission suggestions an "Always" applies (issue 84), by the index the
    /// phone signs: what an approval of kind ``DecisionKind/approvalWithAlways`` offers.
    public let suggestions: [JSONValue]

    public init(eventID: String, kind: DecisionKind, askedAt: Date, suggestions: [JSONValue] = []) {
        self.eventID = eventID
        self.kind = kind
        self.askedAt = askedAt
        self.suggestions = suggestions
    }

    /// A new question: `prefix` names who asks (`claude`, `codex`, `reply`, `mcp`).
    public static func make(
        _ kind: DecisionKind, prefix: String, at date: Date = Date(), suggestions: [JSONValue] = []
    ) -> Question {
        Question(eventID: QuestionID.make(prefix: prefix), kind: kind, askedAt: date, suggestions: suggestions)
    }
}
