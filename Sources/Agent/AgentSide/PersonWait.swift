import Foundation
import PushgateAgentHooks
import PushgateCore

/// The one wait for a person (issue 82): the permission request, the Stop reply,
/// `ask_user` and the channel all wait here. It long-polls `awaitDecision` until the
/// question is decided, settled, or its deadline passes; checks each decision itself
/// (``DecisionCheck``, against the pins as the file holds them then: a phone paired
/// during the wait is heard); and asks again while the gateway restarts.
///
/// It never spins: a call that comes back at once (a gateway answering "not decided"
/// without holding the call, one that refuses, one that is down) is followed by a
/// pause of at least ``firstPause``, doubling to ``longestPause``; one that held its
/// wait is followed at once. A gateway that never answers costs one call per
/// ``maxWaitPerCall``, and the deadline holds whatever it does.
public struct PersonWait: Sendable {
    public let gateway: any AgentGateway
    public let pins: PinFile
    /// How long a call takes beside what the gateway holds it.
    public let callTimeout: Duration

    /// The longest one `awaitDecision` call holds, as the gateway allows.
    public static let maxWaitPerCall = 300
    /// A call shorter than this came back at once.
    public static let firstPause: Duration = .milliseconds(500)
    public static let longestPause: Duration = .seconds(8)

    public init(gateway: any AgentGateway, pins: PinFile, callTimeout: Duration) {
        self.gateway = gateway
        self.pins = pins
        self.callTimeout = callTimeout
    }

    /// Waits for the answer to `question` until `deadline` (or the task is cancelled:
    /// an MCP client that gave up).
    public func answer(to question: Question, until deadline: ContinuousClock.Instant) async -> WaitEnd {
        var pause = Self.firstPause
        while true {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero, !Task.isCancelled else { return .noAnswer }
            let wait = Self.seconds(left)
            let started = ContinuousClock.now
            do {
                // The call outlives its wait by the time an answer takes to come, never
                // the deadline by more than a second.
                let answer = try await gateway.awaitDecision(
                    question.eventID, wait: wait, timeout: min(.seconds(wait) + callTimeout, left + .seconds(1)))
                if let end = check(answer, for: question) { return end }
            } catch let error where !error.isRetryable {
                return .refused(error.description)
            } catch {
                // Unreachable, too many waits held (429), a gateway in trouble (5xx): asked again.
            }
            guard started.duration(to: .now) < Self.firstPause else {
                pause = Self.firstPause
                continue
            }
            let now = ContinuousClock.now
            do {
                try await Task.sleep(for: min(pause, now.duration(to: deadline)))
            } catch {
                return .noAnswer
            }
            pause = min(pause * 2, Self.longestPause)
        }
    }

    /// The seconds one call asks the gateway to hold it, of `left`: whole seconds (the
    /// wire's), rounded up — the last part of a second is waited too — and no more
    /// than ``maxWaitPerCall``.
    static func seconds(_ left: Duration) -> Int {
        let (whole, fraction) = left.components
        return Int(min(Int64(maxWaitPerCall), max(0, whole + (fraction > 0 ? 1 : 0))))
    }

    /// The end one answer makes of the wait; `nil` while it is pending.
    public func check(_ answer: AwaitedDecision, for question: Question) -> WaitEnd? {
        var pins = DecisionPins()
        if answer.decided {
            do {
                pins = try self.pins.read()
            } catch {
                return .refused("a decision came, not obeyed: the pin file \(self.pins.path) \(error)")
            }
        }
        return DecisionCheck.end(of: answer, for: question, serverKey: gateway.serverKey, pins: pins)
    }
}
