import PushgateAPNs
import PushgateCore
import PushgateFCM
import PushgateProviderKit
import Testing

@Suite("Send rounds: one chunk of a push service's sends, APNs and FCM alike")
struct SendRoundsTests {
    /// Three APNs targets and one FCM target.
    static let targets = ["a0", "a1", "f2", "a3"].map { token in
        DeliveryTarget(
            installationID: token,
            token: token.hasPrefix("a") ? .apns(token) : .fcm(token),
            pushID: "id-\(token)")
    }

    /// What a chunk's rounds did: the indices each round sent with its credential
    /// and whether it was renewed, the renewals asked for, the health reports.
    final class Log {
        var rounds: [(indices: [Int], credential: Int, renewed: Bool)] = []
        var renewals: [Int] = []
        var refused: [String] = []
        var accepted = 0
        /// Each round's report of the service's silence: a reason, or nil when it was heard.
        var silence: [String?] = []
    }

    /// Rounds whose credential is a number, raised by each renewal when `renews`.
    static func rounds(
        _ log: Log, maxAttempts: Int = 3, renews: Bool = true, credential: SendRounds<Int>.Credentialed? = nil
    ) -> SendRounds<Int> {
        var current = 1
        return SendRounds<Int>(
            maxAttempts: maxAttempts,
            credential: { credential ?? .ready(current) },
            renew: { rejected in
                log.renewals.append(rejected)
                if renews { current += 1 }
                return renews
            },
            refused: { log.refused.append($0) },
            accepted: { log.accepted += 1 },
            silent: { log.silence.append($0) },
            heard: { log.silence.append(nil) })
    }

    /// Sends the targets of `kind`, each round answering the next verdicts in order.
    static func send(
        _ rounds: SendRounds<Int>, _ log: Log, kind: PushServiceID = .apns, responses: [[PushVerdict]]
    ) async -> [DeliveryOutcome] {
        var responses = responses[...]
        return await rounds.send(targets, of: kind, otherKindReason: "OtherKind") { indices, credential, renewed in
            log.rounds.append((indices, credential, renewed))
            let verdicts = responses.popFirst() ?? []
            #expect(verdicts.count == indices.count, "a verdict per push sent")
            return verdicts
        }
    }

    @Test("another kind's token fails at once; the service's own are sent, what was unprocessed again at once")
    func resendsUnprocessed() async {
        let log = Log()
        let outcomes = await Self.send(
            Self.rounds(log), log,
            responses: [[.delivered, .resend(reason: "Shutdown"), .delivered], [.delivered]])
        #expect(outcomes == [.delivered, .delivered, .failed(reason: "OtherKind"), .delivered])
        #expect(log.rounds.map(\.indices) == [[0, 1, 3], [1]])
        #expect(log.accepted == 2 && log.refused.isEmpty && log.renewals.isEmpty)
    }

    @Test("unprocessed on the last round allowed: retried later, not sent again")
    func lastRound() async {
        let log = Log()
        let outcomes = await Self.send(
            Self.rounds(log, maxAttempts: 2), log, kind: .fcm,
            responses: [[.resend(reason: "Shutdown")], [.resend(reason: "Shutdown")]])
        #expect(outcomes[2] == .retryLater(reason: "Shutdown", after: nil))
        #expect(log.rounds.count == 2)
    }

    @Test("a stale credential is renewed once per chunk and the refused pushes sent again with the new one")
    func renewsOnce() async {
        let log = Log()
        let outcomes = await Self.send(
            Self.rounds(log), log,
            responses: [
                [.renewToken(reason: "ExpiredProviderToken"), .delivered, .renewToken(reason: "ExpiredProviderToken")],
                [.delivered, .renewToken(reason: "ExpiredProviderToken")],
            ])
        #expect(log.renewals == [1], "one renewal, of the credential refused")
        #expect(log.rounds.map(\.credential) == [1, 2] && log.rounds.map(\.renewed) == [false, true])
        #expect(
            outcomes == [
                .delivered, .delivered, .failed(reason: "OtherKind"),
                .retryLater(reason: "ExpiredProviderToken", after: nil),
            ], "stale again after the renewal: left for a later retry")
    }

    @Test("a renewal that gives no new credential leaves the refused pushes for a later retry")
    func renewalRefused() async {
        let log = Log()
        let outcomes = await Self.send(
            Self.rounds(log, renews: false), log,
            responses: [[.renewToken(reason: "ExpiredProviderToken"), .delivered, .delivered]])
        #expect(outcomes[0] == .retryLater(reason: "ExpiredProviderToken", after: nil))
        #expect(log.rounds.count == 1 && log.renewals == [1])
    }

    @Test("a configuration refused stops the chunk: what was to go again fails with the reason, reported once")
    func configurationRefused() async {
        let log = Log()
        let outcomes = await Self.send(
            Self.rounds(log), log,
            responses: [[.configurationError(reason: "InvalidProviderToken"), .resend(reason: "Shutdown"), .delivered]])
        #expect(
            outcomes == [
                .configurationError(reason: "InvalidProviderToken"),
                .configurationError(reason: "InvalidProviderToken"), .failed(reason: "OtherKind"), .delivered,
            ])
        #expect(log.refused == ["InvalidProviderToken"] && log.accepted == 0 && log.rounds.count == 1)
    }

    @Test("no credential: every pending push gets the outcome given, nothing is sent")
    func noCredential() async {
        let log = Log()
        let outcomes = await Self.send(
            Self.rounds(log, credential: .unavailable(.configurationError(reason: "ProviderTokenSigning"))), log,
            responses: [])
        #expect(outcomes.filter { $0 == .configurationError(reason: "ProviderTokenSigning") }.count == 3)
        #expect(log.rounds.isEmpty)
    }

    @Test("a round with no answer at all reports the service silent, with the first push's reason")
    func silentRound() async {
        let log = Log()
        let outcomes = await Self.send(
            Self.rounds(log), log,
            responses: [
                [.resend(reason: "GoAway"), .unanswered(reason: "Timeout"), .unanswered(reason: "ConnectionLost")],
                [.unanswered(reason: "ConnectFailed")],
            ])
        #expect(
            outcomes == [
                .retryLater(reason: "ConnectFailed", after: nil), .retryLater(reason: "Timeout", after: nil),
                .failed(reason: "OtherKind"), .retryLater(reason: "ConnectionLost", after: nil),
            ], "retried later, as any passing trouble")
        #expect(log.silence == ["Timeout", "ConnectFailed"])
        #expect(log.accepted == 0 && log.refused.isEmpty)
    }

    @Test(
        "any answer is the service heard, a refusal or a 503 too; a round of unprocessed pushes alone says nothing",
        arguments: [
            PushVerdict.delivered, .retry(reason: "ServiceUnavailable", after: nil),
            .deleteToken(reason: "Unregistered"), .configurationError(reason: "InvalidProviderToken"),
            .permanentFailure(reason: "PayloadTooLarge"),
        ])
    func heardRound(response: PushVerdict) async {
        let log = Log()
        _ = await Self.send(
            Self.rounds(log, maxAttempts: 2), log,
            responses: [
                [.unanswered(reason: "Timeout"), response, .resend(reason: "GoAway")], [.resend(reason: "GoAway")],
            ])
        #expect(log.silence == [nil], "heard in the first round; the second, unprocessed only, reports nothing")
    }
}
