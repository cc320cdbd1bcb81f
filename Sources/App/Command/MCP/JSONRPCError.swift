import PushgateCore

/// A JSON-RPC error `pushgate mcp` answers a request with: a protocol fault (a message
/// it cannot read, a method it does not serve, params of the wrong shape, an era or
/// version it does not speak), never a tool's own failure (``ToolResult``).
struct JSONRPCError: Error, Sendable, Equatable {
    let code: Int
    let message: String
    var data: JSONValue?

    static func parseError(_ message: String) -> JSONRPCError { JSONRPCError(code: -32700, message: message) }
    static func invalidRequest(_ message: String) -> JSONRPCError { JSONRPCError(code: -32600, message: message) }
    static func methodNotFound(_ method: String) -> JSONRPCError {
        JSONRPCError(code: -32601, message: "no method '\(method.prefix(64))' is served")
    }
    static func invalidParams(_ message: String) -> JSONRPCError { JSONRPCError(code: -32602, message: message) }
    /// MCP's `UNSUPPORTED_PROTOCOL_VERSION`: the versions served, and the one asked for.
    static func unsupportedVersion(_ message: String, requested: JSONValue?) -> JSONRPCError {
        var data: [String: JSONValue] = ["supported": .array(MCPProtocol.modernVersions.map(JSONValue.string))]
        data["requested"] = requested
        return JSONRPCError(code: -32022, message: message, data: .object(data))
    }

    /// The error object of a response.
    var json: JSONValue {
        var error: [String: JSONValue] = ["code": .number(Double(code)), "message": .string(message)]
        error["data"] = data
        return .object(error)
    }
}
