import PushgateAgentHooks

/// How a wait for a person ended (``PersonWait``).
public enum WaitEnd: Sendable, Equatable {
    /// A decision checked here: signed for this question by a phone paired here.
    case decided(PersonDecision)
    /// Settled without a decision (`resolveEvent`, its expiry): nothing to obey.
    case resolved(Resolution)
    /// A decision that does not hold, and why: nothing is obeyed, and the agent's own
    /// prompt goes on.
    case refused(String)
    /// Nothing in time.
    case noAnswer
}
