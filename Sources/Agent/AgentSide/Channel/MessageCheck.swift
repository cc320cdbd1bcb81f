import Foundation
import PushgateAgentHooks
import PushgateCore
import PushgateSealing

/// What the agent's side makes of a message `GET /replies` handed over (issue 84): it is
/// heard only from an installation paired on this machine, signed by the key paired
/// for it over this server, the message's own id, `say:<this agent's key>` and the
/// words — a gateway that lies, or a holder of the push secret with a phone of its own,
/// can withhold a message, never make one, nor move one from another agent. A message
/// signed more than ``maxAge`` ago is stale, and an id heard once is not heard again
/// (``seen``, for the channel's life): a gateway cannot replay one.
public struct MessageCheck: Sendable {
    /// The oldest a message may be signed and still be heard: a day, for words that
    /// waited while no channel ran.
    public static let maxAge: TimeInterval = 86_400

    public let serverKey: ServerKey
    public let agent: AgentKey
    private(set) var seen: Set<String> = []

    public init(serverKey: ServerKey, agent: AgentKey) {
        self.serverKey = serverKey
        self.agent = agent
    }

    /// A message heard: the words exactly, who said them.
    public struct Heard: Sendable, Equatable {
        public let words: String
        public let messageID: String
        public let installationID: String
        /// The name the phone was paired under.
        public let deviceName: String?

        /// Who said it: the device's name, else its installation.
        public var from: String { deviceName ?? installationID }
    }

    /// The message heard, or why not (a line for standard error).
    public mutating func check(_ words: UnreadWords.Words, pins: DecisionPins, now: Date = Date()) -> Result<
        Heard, Refusal
    > {
        let named = InvisibleCharacters.escaped(String(words.decidedBy.prefix(128)))
        guard words.kind == "message" else { return .failure(Refusal("\(named)'s words answer a question")) }
        guard let pin = pins[words.decidedBy] else {
            return .failure(Refusal("a message from \(named), which is not paired on this machine: not heard"))
        }
        guard let signedAt = words.signedAt, let signature = words.signature else {
            return .failure(Refusal("a message said to be \(named)'s comes without its signature: not heard"))
        }
        let signed = SignedDecision(
            serverKey: serverKey.hex, eventID: words.eventID, installationID: words.decidedBy, decision: .say,
            signedAt: signedAt, message: words.message, signature: signature, scope: agent.hex)
        guard signed.isSigned(by: pin.key) else {
            return .failure(
                Refusal(
                    "a message said to be \(named)'s is not signed for this agent by the key paired for it (\(pin.key.fingerprint)): not heard"
                ))
        }
        guard Double(signedAt) >= now.timeIntervalSince1970 - Self.maxAge else {
            return .failure(Refusal("a message of \(named) signed over a day ago: not heard"))
        }
        guard seen.insert(words.eventID).inserted else {
            return .failure(Refusal("the message \(words.eventID.prefix(64)) of \(named) again: heard once already"))
        }
        return .success(
            Heard(
                words: words.message, messageID: words.eventID, installationID: words.decidedBy,
                deviceName: pin.deviceName))
    }

    /// Why a message is not heard.
    public struct Refusal: Error, Equatable, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}
