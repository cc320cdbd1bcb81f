import Foundation
import PushgateAgentHooks
import PushgateCore

/// The one wait for a person (issue 82): the permission request, the Stop reply,
/// `ask_user` and the channel all wait here. It long-polls `awaitDecision` (``LongPoll``:
/// it never spins, and its deadline holds) until the question is decided, settled, or
/// its deadline passes; checks each decision itself (``DecisionCheck``, against the
/// pins as the file holds them then: a phone paired during the wait is heard); and
/// asks again while the gateway restarts.
public struct PersonWait: Sendable {
    public let gateway: any AgentGateway
    public let pins: PinFile
    /// How long a call takes beside what the gateway holds it.
    public let callTimeout: Duration

    public init(gateway: any AgentGateway, pins: PinFile, callTimeout: Duration) {
        self.gateway = gateway
        self.pins = pins
        self.callTimeout = callTimeout
    }

    /// Waits for the answer to `question` until `deadline` (or the task is cancelled:
    /// an MCP client that gave up).
    public func answer(to question: Question, until deadline: ContinuousClock.Instant) async -> WaitEnd {
        await LongPoll.until(deadline, callTimeout: callTimeout) { wait, timeout -> WaitEnd? in
            do throws(GatewayCallError) {
                return check(
                    try await gateway.awaitDecision(question.eventID, wait: wait, timeout: timeout), for: question)
            } catch {
                // Unreachable, too many waits held (429), a gateway in trouble (5xx): asked again.
                return error.isRetryable ? nil : .refused(error.description)
            }
        } ?? .noAnswer
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
