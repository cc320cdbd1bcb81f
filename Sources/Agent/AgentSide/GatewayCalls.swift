import Foundation
import PushgateAgentHooks
import PushgateCore

/// Why a call to the gateway gave no answer the agent's side can use, in the words
/// of a hook's line.
public struct GatewayCallError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// No answer came (not listening, too slow).
        case unreachable
        /// An error answer: its status, and its error JSON when it has one.
        case refused(status: UInt, refusal: GatewayRefusal?)
        /// A 2xx whose body is not the function's answer.
        case unreadable
    }

    public let function: GatewayFunction
    public let kind: Kind
    public let description: String

    /// The refusal's reason word (`already_decided`, …), when the gateway gave one.
    public var reason: String? {
        if case .refused(_, let refusal?) = kind { return refusal.error.reason }
        return nil
    }

    /// Whether the gateway said no (an error answer), rather than gave no answer.
    public var wasAnswered: Bool {
        if case .unreachable = kind { return false }
        return true
    }

    /// Whether the same call may be made again: no answer, an answer that is none,
    /// too many waits held (429), a gateway in trouble (5xx).
    public var isRetryable: Bool {
        guard case .refused(let status, _) = kind else { return true }
        return status == 429 || status >= 500
    }
}

/// An answer decoded, and the status it came with (a trigger stored and not yet tried
/// answers 202).
public struct Answered<Answer: Sendable>: Sendable {
    public let status: UInt
    public let answer: Answer

    /// The call as a hook's line tells it.
    public func line(_ function: GatewayFunction) -> String { "\(function.rawValue) answered \(status)" }
}

extension AgentGateway {
    /// POSTs `body` to `function` and decodes its answer.
    public func call<Answer: Decodable & Sendable>(
        _ function: GatewayFunction, _ body: [String: JSONValue], as type: Answer.Type, timeout: Duration
    ) async throws(GatewayCallError) -> Answer {
        try await answered(function, body, as: type, timeout: timeout).answer
    }

    /// POSTs `body` to `function`: its answer decoded, with its status.
    public func answered<Answer: Decodable & Sendable>(
        _ function: GatewayFunction, _ body: [String: JSONValue], as type: Answer.Type, timeout: Duration
    ) async throws(GatewayCallError) -> Answered<Answer> {
        let reply: GatewayReply
        do {
            reply = try await post(function, body, timeout: timeout)
        } catch {
            throw GatewayCallError(
                function: function, kind: .unreachable, description: "\(function.rawValue) not sent: \(error)")
        }
        return Answered(status: reply.status, answer: try Self.decoded(reply, of: function, as: type))
    }

    /// An answer's body decoded as `Answer`, or the error it is.
    static func decoded<Answer: Decodable>(_ reply: GatewayReply, of function: GatewayFunction, as type: Answer.Type)
        throws(GatewayCallError) -> Answer
    {
        guard reply.isSuccess else {
            throw GatewayCallError(
                function: function,
                kind: .refused(
                    status: reply.status, refusal: GatewayAnswers.decode(GatewayRefusal.self, from: reply.body)),
                description: "\(function.rawValue) answered \(reply.status): \(reply.text())")
        }
        guard let answer = GatewayAnswers.decode(type, from: reply.body) else {
            throw GatewayCallError(
                function: function, kind: .unreadable,
                description: "\(function.rawValue) answered \(reply.status) with no answer of its own: \(reply.text())")
        }
        return answer
    }

    /// A trigger (`triggerEvent`, `triggerReplyFinished`): the event's receipt.
    public func trigger(_ call: GatewayCall, timeout: Duration) async throws(GatewayCallError)
        -> Answered<TriggerReceipt>
    {
        try await answered(call.function, call.body, as: TriggerReceipt.self, timeout: timeout)
    }

    /// `resolveEvent`: the event withdrawn from the phones as `resolution`.
    public func resolve(_ eventID: String, as resolution: Resolution, timeout: Duration) async throws(GatewayCallError)
        -> ResolveReceipt
    {
        try await call(
            .resolveEvent, ["event_id": .string(eventID), "resolution": .string(resolution.word)],
            as: ResolveReceipt.self, timeout: timeout)
    }

    /// `awaitDecision`, held at most `wait` seconds by the gateway.
    public func awaitDecision(_ eventID: String, wait: Int, timeout: Duration) async throws(GatewayCallError)
        -> AwaitedDecision
    {
        try await call(
            .awaitDecision, ["event_id": .string(eventID), "wait": .number(Double(wait))], as: AwaitedDecision.self,
            timeout: timeout)
    }

    /// `startPairing`: a pairing open `wait` seconds.
    public func startPairing(wait: Int, timeout: Duration) async throws(GatewayCallError) -> OpenedPairing {
        try await call(.startPairing, ["wait": .number(Double(wait))], as: OpenedPairing.self, timeout: timeout)
    }

    /// `awaitPairing`: the completions, once there are more than `seen`.
    public func awaitPairing(_ pairingID: String, wait: Int, seen: Int, timeout: Duration)
        async throws(GatewayCallError) -> PairingCompletions
    {
        try await call(
            .awaitPairing,
            ["pairing_id": .string(pairingID), "wait": .number(Double(wait)), "seen": .number(Double(seen))],
            as: PairingCompletions.self, timeout: timeout)
    }

    /// `GET /replies` for the agent of `cwd`: its unread words of `kind` (both when
    /// `nil`), the call held up to `wait` seconds while there are none.
    public func unreadWords(of cwd: String, kind: String?, wait: Int, timeout: Duration)
        async throws(GatewayCallError) -> UnreadWords
    {
        var query = ["cwd": cwd, "wait": String(wait)]
        query["kind"] = kind
        return try await got(.replies, query: query, as: UnreadWords.self, timeout: timeout)
    }

    /// `diagnostics` for the agent of `cwd`: its devices, a page of 500.
    public func devices(of cwd: String, timeout: Duration) async throws(GatewayCallError) -> AgentDevices {
        try await got(
            .diagnostics, query: ["agent_key": AgentKey(cwd: cwd).hex, "page_size": "500"], as: AgentDevices.self,
            timeout: timeout)
    }

    /// GETs `function` with `query` and decodes its answer.
    func got<Answer: Decodable & Sendable>(
        _ function: GatewayFunction, query: [String: String], as type: Answer.Type, timeout: Duration
    ) async throws(GatewayCallError) -> Answer {
        let reply: GatewayReply
        do {
            reply = try await get(function, query: query, timeout: timeout)
        } catch {
            throw GatewayCallError(
                function: function, kind: .unreachable, description: "\(function.rawValue) not sent: \(error)")
        }
        return try Self.decoded(reply, of: function, as: type)
    }
}
