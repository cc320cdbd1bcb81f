import PushgateAgentHooks
import PushgateCore

/// The gateway as the agent's side reaches it: one call to one function, answered
/// with its status and body. ``HTTPAgentGateway`` is the real one; the tests hold
/// fakes in process — honest, lying, answering at once, never answering — to prove
/// that nothing they say makes a yes the phone did not sign.
public protocol AgentGateway: Sendable {
    /// The base URL (what a pairing link names).
    var baseURL: String { get }
    /// The server key of the push secret the calls carry: what every signature a
    /// phone makes for this gateway's namespace names.
    var serverKey: ServerKey { get }

    /// POSTs `body` to `function`; throws when no answer came within `timeout`.
    func post(_ function: GatewayFunction, _ body: [String: JSONValue], timeout: Duration) async throws
        -> GatewayReply

    /// GETs `function` with `query`; throws when no answer came within `timeout`.
    func get(_ function: GatewayFunction, query: [String: String], timeout: Duration) async throws -> GatewayReply
}

/// What the gateway answered one call: its HTTP status and body.
public struct GatewayReply: Sendable, Equatable {
    public let status: UInt
    public let body: [UInt8]

    public init(status: UInt, body: [UInt8]) {
        self.status = status
        self.body = body
    }

    public var isSuccess: Bool { (200..<300).contains(status) }

    /// The body as text, at most `limit` characters: what a line may quote.
    public func text(upTo limit: Int = 300) -> String {
        InvisibleCharacters.escaped(String(String(decoding: body.prefix(limit * 4), as: UTF8.self).prefix(limit)))
    }
}
