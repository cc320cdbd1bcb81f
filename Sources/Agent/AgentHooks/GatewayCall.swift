import PushgateCore

/// The gateway's functions the agent's side calls, by the name they are routed at.
public enum GatewayFunction: String, Sendable, Hashable, CaseIterable {
    case triggerEvent, triggerReplyFinished, resolveEvent, awaitDecision
    case startPairing, completePairing, awaitPairing
    case diagnostics
    /// The agent's unread words (`GET /replies`), and a phone's message to it (issue 84).
    case replies, sayToAgent
}

/// One call to the gateway a hook event becomes: the function and its body.
public struct GatewayCall: Sendable, Equatable {
    public let function: GatewayFunction
    public var body: [String: JSONValue]

    public init(_ function: GatewayFunction, _ body: [String: JSONValue]) {
        self.function = function
        self.body = body
    }
}
