import PushgateCore

/// What one try of a chunk decided, from each push's verdict: the outcomes known
/// now, and the pushes to send again at once (unprocessed ones, and those refused
/// for a stale credential once it is renewed). Backoff is not decided here: it
/// belongs to the outbox, which keeps the push across restarts.
public struct SendRound: Sendable {
    /// The chunk's last try within this call: nothing is sent again at once.
    public let isLastTry: Bool
    public private(set) var outcomes: [(index: Int, outcome: DeliveryOutcome)] = []
    /// Pushes to send again at once, by their index in the chunk.
    public private(set) var again: [Int] = []
    /// Set when the service refused the gateway itself: the rest of the chunk is not sent.
    public private(set) var configurationError: String?
    public private(set) var anyDelivered = false
    /// Some push got an answer of the service (any status, a refusal too).
    public private(set) var anyAnswered = false
    /// Why the first push that got no answer at all did not (``PushVerdict/unanswered(reason:)``).
    public private(set) var firstUnanswered: String?

    public init(isLastTry: Bool) {
        self.isLastTry = isLastTry
    }

    /// Records push `index`'s verdict. `renewCredential` is asked (at most once per
    /// push) whether a fresh credential is ready to retry with.
    public mutating func record(_ verdict: PushVerdict, for index: Int, renewCredential: () -> Bool) {
        switch verdict {
        case .resend, .unanswered: break
        case .delivered, .deliveredAs, .deleteToken, .permanentFailure, .configurationError, .retry, .renewToken:
            anyAnswered = true
        }
        switch verdict {
        case .delivered:
            anyDelivered = true
            outcomes.append((index, .delivered))
        case .deliveredAs(let messageID):
            anyDelivered = true
            outcomes.append((index, .deliveredAs(messageID: messageID)))
        case .deleteToken(let reason):
            outcomes.append((index, .tokenInvalid(reason: reason)))
        case .permanentFailure(let reason):
            outcomes.append((index, .failed(reason: reason)))
        case .configurationError(let reason):
            configurationError = reason
            outcomes.append((index, .configurationError(reason: reason)))
        case .resend(let reason):
            if isLastTry {
                outcomes.append((index, .retryLater(reason: reason, after: nil)))
            } else {
                again.append(index)
            }
        case .retry(let reason, let after):
            outcomes.append((index, .retryLater(reason: reason, after: after)))
        case .unanswered(let reason):
            firstUnanswered = firstUnanswered ?? reason
            outcomes.append((index, .retryLater(reason: reason, after: nil)))
        case .renewToken(let reason):
            if !isLastTry, renewCredential() {
                again.append(index)
            } else {
                outcomes.append((index, .retryLater(reason: reason, after: nil)))
            }
        }
    }
}
