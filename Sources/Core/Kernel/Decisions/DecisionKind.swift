import PushgateSealing

/// What a phone can answer on a push (issues 73 and 74): an approval (allow or
/// deny, a reason beside), or a question or reply answered in words.
public enum DecisionKind: String, Sendable, Hashable, Codable {
    case approval
    case answer

    /// The decisions a phone may sign for it.
    public var decisions: Set<SignedDecision.Decision> {
        switch self {
        case .approval: [.allow, .deny]
        case .answer: [.answer]
        }
    }

    /// The actions a push names where its platform shows them from the push itself
    /// (FCM's `data.actions`, a Web Push's `actions`): their ids (the decision each
    /// makes), titles, and whether the action takes typed words.
    public var actions: [(id: String, title: String, takesText: Bool)] {
        switch self {
        case .approval: [("allow", "Allow", false), ("deny", "Deny", false)]
        case .answer: [("answer", "Reply", true)]
        }
    }

    /// The kind of an event record (its `type`, and `answerable` when stored);
    /// `nil` for one nobody answers from a phone.
    public init?(type: String?, answerable: Bool) {
        if type == EventType.approvalRequested.rawValue {
            self = .approval
        } else if answerable {
            self = .answer
        } else {
            return nil
        }
    }
}

extension PushNotification {
    /// What the phone can answer on it: an approval (or its reminder) with an event
    /// id, or a push marked answerable (``EventComposer/Event/answerable``).
    public var decisionKind: DecisionKind? {
        guard data["event_id"]?.stringValue != nil else { return nil }
        return DecisionKind(
            type: data["type"]?.stringValue, answerable: data["answerable"] == .bool(true))
    }
}
