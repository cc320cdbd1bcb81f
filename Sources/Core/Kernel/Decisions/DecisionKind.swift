import PushgateSealing

/// What a phone can answer on a push (issues 73 and 74): an approval (allow or
/// deny, a reason beside), or a question or reply answered in words.
public enum DecisionKind: String, Sendable, Hashable, Codable {
    case approval
    /// An approval that offers a third choice (issue 84): allow, and apply the
    /// agent's first permission suggestion ("always allow" this).
    case approvalWithAlways
    case answer

    /// The decisions a phone may sign for it.
    public var decisions: Set<SignedDecision.Decision> {
        switch self {
        case .approval: [.allow, .deny]
        case .approvalWithAlways: [.allow, .deny, .allowAlways]
        case .answer: [.answer]
        }
    }

    /// The actions a push names where its platform shows them from the push itself
    /// (FCM's `data.actions`, a Web Push's `actions`): their ids (the decision each
    /// makes), titles, and whether the action takes typed words.
    public var actions: [(id: String, title: String, takesText: Bool)] {
        switch self {
        case .approval: [("allow", "Allow", false), ("deny", "Deny", false)]
        case .approvalWithAlways:
            [("allow", "Allow", false), ("allow_always", "Always", false), ("deny", "Deny", false)]
        case .answer: [("answer", "Reply", true)]
        }
    }

    /// Whether it is an approval (allow or deny), with or without the third choice.
    public var isApproval: Bool { self != .answer }

    /// The kind of an event record (its `type`, `answerable` when stored, and whether
    /// it offers "always allow"); `nil` for one nobody answers from a phone.
    public init?(type: String?, answerable: Bool, offersAlways: Bool = false) {
        if type == EventType.approvalRequested.rawValue {
            self = offersAlways ? .approvalWithAlways : .approval
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
            type: data["type"]?.stringValue, answerable: data["answerable"] == .bool(true),
            offersAlways: data[EventComposer.allowAlwaysKey]?.stringValue != nil)
    }
}
