import PushgateCore

/// How a push service sends one chunk, APNs and FCM alike: in rounds, each with a
/// credential (APNs's provider token, FCM's access token), the responses read as
/// verdicts into a ``SendRound``. Unprocessed pushes go again at once, a credential the
/// service calls stale is renewed once per chunk, and at most `maxAttempts` rounds
/// are made. When the service refuses the gateway's configuration, the rest of the
/// chunk is not sent. What differs between services is in the closures.
public struct SendRounds<Credential> {
    /// A credential to send with, or, when there is none, the outcome every push
    /// still pending gets.
    public enum Credentialed {
        case ready(Credential)
        case unavailable(DeliveryOutcome)
    }

    let maxAttempts: Int
    let credential: () async -> Credentialed
    let renew: (_ rejected: Credential) async -> Bool
    let refused: (_ reason: String) -> Void
    let accepted: () -> Void
    let silent: (_ reason: String) -> Void
    let heard: () -> Void

    /// - Parameters:
    ///   - credential: asked before each round.
    ///   - renew: asked once per chunk, after a round with a stale credential: whether
    ///     the next round has a fresh one (the pushes refused with it are sent again).
    ///   - refused: told the reason when the service refuses the configuration.
    ///   - accepted: told after a round in which a push was delivered.
    ///   - silent: told, with the first push's reason, after a round in which no push
    ///     got an answer and some got none at all (time-outs, no connection).
    ///   - heard: told after a round in which the service answered some push.
    public init(
        maxAttempts: Int,
        credential: @escaping () async -> Credentialed,
        renew: @escaping (_ rejected: Credential) async -> Bool,
        refused: @escaping (_ reason: String) -> Void,
        accepted: @escaping () -> Void,
        silent: @escaping (_ reason: String) -> Void,
        heard: @escaping () -> Void
    ) {
        self.maxAttempts = maxAttempts
        self.credential = credential
        self.renew = renew
        self.refused = refused
        self.accepted = accepted
        self.silent = silent
        self.heard = heard
    }

    /// Sends the targets whose token is of `kind` in rounds; `round` sends the pushes
    /// at the given indices with a credential (and whether it was renewed in this
    /// chunk) and answers a verdict for each. A target of another kind fails with
    /// `otherKindReason`: the routing sends each service its own tokens, so that is a
    /// bug, not a push. A push never sent comes back to be retried later.
    public func send(
        _ targets: [DeliveryTarget], of kind: PushServiceID, otherKindReason: String,
        round: (_ indices: [Int], _ credential: Credential, _ renewed: Bool) async -> [PushVerdict]
    ) async -> [DeliveryOutcome] {
        var outcomes = targets.map { $0.token.kind == kind ? nil : DeliveryOutcome.failed(reason: otherKindReason) }
        var pending = targets.indices.filter { targets[$0].token.kind == kind }
        var renewed = false
        var attempt = 0
        while !pending.isEmpty {
            attempt += 1
            let credential: Credential
            switch await self.credential() {
            case .ready(let ready):
                credential = ready
            case .unavailable(let outcome):
                for index in pending { outcomes[index] = outcome }
                return outcomes.map { $0 ?? Self.notSent }
            }
            let verdicts = await round(pending, credential, renewed)
            var fresh = false
            if !renewed, verdicts.contains(where: \.asksForRenewal) {
                // Once per chunk, so that a clock gone wrong cannot loop.
                renewed = true
                fresh = await renew(credential)
            }
            var sendRound = SendRound(isLastTry: attempt >= maxAttempts)
            for (index, verdict) in zip(pending, verdicts) {
                sendRound.record(verdict, for: index) { fresh }
            }
            for (index, outcome) in sendRound.outcomes { outcomes[index] = outcome }
            if sendRound.anyAnswered {
                heard()
            } else if let reason = sendRound.firstUnanswered {
                silent(reason)
            }
            if let reason = sendRound.configurationError {
                // The gateway itself is refused: what is left of this chunk is not sent.
                for index in sendRound.again { outcomes[index] = .configurationError(reason: reason) }
                refused(reason)
                break
            }
            if sendRound.anyDelivered { accepted() }
            pending = sendRound.again
        }
        return outcomes.map { $0 ?? Self.notSent }
    }

    static var notSent: DeliveryOutcome { .retryLater(reason: "NotSent", after: nil) }
}

extension PushVerdict {
    /// The service called the gateway's credential stale.
    var asksForRenewal: Bool {
        if case .renewToken = self { return true }
        return false
    }
}
