import PushgateCore

/// `triggerReplyFinished`: the seed's contract, exactly — an event of type
/// `reply_finished` whose body is the reply's preview, whose `finished_at` orders
/// it, and whose `conversation_id` goes to the devices and, with `finished_at`,
/// makes a repeat recognisable.
public struct TriggerReplyFinishedFunction: Sendable {
    private let trigger: TriggerEventFunction

    public init(trigger: TriggerEventFunction) {
        self.trigger = trigger
    }

    public func callAsFunction(secret: PushSecret, _ request: TriggerReplyFinishedRequest) async throws
        -> TriggerEventFunction.Result
    {
        try await trigger.notify(secret: secret, request.trigger)
    }
}
