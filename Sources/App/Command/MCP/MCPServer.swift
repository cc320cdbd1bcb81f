import PushgateAgentSide
import PushgateCore

/// The Model Context Protocol server `pushgate mcp` runs over standard input and output:
/// JSON-RPC 2.0, one message a line (``LineTransport``), in either era
/// (``MCPProtocol``), serving `tools/list` and `tools/call` of ``AgentTools``.
///
/// Written here rather than taken from modelcontextprotocol/swift-sdk (0.12.1), which
/// speaks the handshake era only. Each request runs in a task of its own, so a waiting
/// `ask_user` holds up nothing; `notifications/cancelled` cancels the request it names,
/// which is then never answered, as the specification asks (an `ask_user` withdraws its
/// question: ``UserQuestion``).
///
/// As `pushgate channel` (issue 84) it is Claude Code's channel too: it declares
/// `experimental: {"claude/channel": {}, "claude/channel/permission": {}}` and hands
/// the permission requests Claude Code relays, and the session's start, to its
/// ``ChannelRelay``.
actor MCPServer {
    struct Identity: Sendable {
        let name: String
        let version: String
        let instructions: String
    }

    private let transport: LineTransport
    private let tools: AgentTools
    private let identity: Identity
    private let channel: ChannelRelay?
    private var era: MCPProtocol.Era?
    /// The requests being served, by id; the id of one cancelled is kept until it ends,
    /// so that a late answer is never sent.
    private var running: [JSONValue: Task<Void, Never>] = [:]
    private var cancelled: Set<JSONValue> = []

    /// How long a client may keep `tools/list`'s and `server/discover`'s answers (2026
    /// era): the tools never change while the server runs.
    static let cacheMilliseconds = 3_600_000

    init(transport: LineTransport, tools: AgentTools, identity: Identity, channel: ChannelRelay? = nil) {
        self.transport = transport
        self.tools = tools
        self.identity = identity
        self.channel = channel
    }

    /// What it declares it serves.
    private var capabilities: JSONValue {
        var capabilities: [String: JSONValue] = ["tools": ["listChanged": false]]
        if channel != nil {
            capabilities["experimental"] = ["claude/channel": [:], "claude/channel/permission": [:]]
        }
        return .object(capabilities)
    }

    /// Serves until standard input ends; then what is still running is cancelled (the
    /// client is gone) and waited for.
    func run() async {
        for await line in transport.lines() {
            switch line {
            case .overlong:
                await send(.invalidRequest("a message over 1 MiB: not read"), to: .null)
            case .message(let bytes):
                await receive(bytes)
            }
        }
        let left = running.values
        for task in left { task.cancel() }
        for task in left { await task.value }
        await channel?.stop()
    }

    private func receive(_ line: [UInt8]) async {
        let message: JSONRPCMessage
        do {
            message = try JSONRPCMessage(line: line)
        } catch {
            await send(error.error, to: error.id)
            return
        }
        switch message {
        case .response:
            return
        case .notification(let method, let params):
            switch method {
            case "notifications/cancelled":
                if let id = params["requestId"], let task = running[id] {
                    cancelled.insert(id)
                    task.cancel()
                }
            case "notifications/initialized":
                await channel?.startListening()
            case "notifications/claude/channel/permission_request":
                await channel?.permissionRequested(params)
            default:
                break
            }
        case .request(let id, let method, let params):
            guard running[id] == nil else {
                await send(.invalidRequest("a request with this id is still being served"), to: id)
                return
            }
            let era: MCPProtocol.Era
            do {
                era = try self.era(of: method, params)
            } catch {
                await send(error, to: id)
                return
            }
            // The 2026 era has no initialized notification: its first request starts the session.
            if case .modern = era { await channel?.startListening() }
            running[id] = Task { await self.serve(id: id, method: method, params: params, era: era) }
        }
    }

    /// The era `method` is served in: the connection's, decided by its first request,
    /// the request's own envelope checked in the 2026 era.
    private func era(of method: String, _ params: [String: JSONValue]) throws(JSONRPCError) -> MCPProtocol.Era {
        let enveloped = MCPProtocol.isEnveloped(method: method, params: params)
        if era == nil { era = enveloped ? .modern : .handshake }
        guard case .modern = era else {
            guard !enveloped else {
                throw .invalidRequest(
                    "this connection serves the handshake protocol: a request with the 2026-07-28 envelope is not taken on it"
                )
            }
            return .handshake
        }
        guard method != "initialize" else {
            throw .unsupportedVersion(
                "this connection serves the 2026-07-28 protocol: no initialize handshake",
                requested: params["protocolVersion"])
        }
        // Each request carries its own envelope.
        try MCPProtocol.checkEnvelope(of: params)
        return .modern
    }

    private func serve(id: JSONValue, method: String, params: [String: JSONValue], era: MCPProtocol.Era) async {
        let answer: Result<JSONValue, JSONRPCError>
        do throws(JSONRPCError) {
            answer = .success(try await result(of: method, params, era: era))
        } catch {
            answer = .failure(error)
        }
        running[id] = nil
        guard cancelled.remove(id) == nil, !Task.isCancelled else { return }
        switch answer {
        case .success(let result): await send(["jsonrpc": "2.0", "id": id, "result": result])
        case .failure(let error): await send(error, to: id)
        }
    }

    private func result(of method: String, _ params: [String: JSONValue], era: MCPProtocol.Era)
        async throws(JSONRPCError) -> JSONValue
    {
        switch (method, era) {
        case ("initialize", .handshake):
            let asked = params["protocolVersion"]?.stringValue
            let version = asked.flatMap { MCPProtocol.handshakeVersions.contains($0) ? $0 : nil }
            return [
                "protocolVersion": .string(version ?? MCPProtocol.handshakeVersions[0]),
                "capabilities": capabilities,
                "serverInfo": ["name": .string(identity.name), "version": .string(identity.version)],
                "instructions": .string(identity.instructions),
            ]
        case ("server/discover", .modern):
            return Self.cacheable([
                "supportedVersions": .array(MCPProtocol.modernVersions.map(JSONValue.string)),
                "capabilities": capabilities,
                "instructions": .string(identity.instructions),
                "_meta": [
                    MCPProtocol.serverInfoKey: [
                        "name": .string(identity.name), "version": .string(identity.version),
                    ]
                ],
            ])
        case ("ping", .handshake):
            return [:]
        case ("ping", .modern):
            return ["resultType": "complete"]
        case ("tools/list", .handshake):
            return ["tools": .array(AgentTools.definitions)]
        case ("tools/list", .modern):
            return Self.cacheable(["tools": .array(AgentTools.definitions)])
        case ("tools/call", _):
            guard let name = params["name"]?.stringValue else { throw .invalidParams("tools/call needs 'name'") }
            guard AgentTools.names.contains(name) else {
                throw .invalidParams("no tool is named '\(name.prefix(64))'")
            }
            let arguments: [String: JSONValue]
            switch params["arguments"] {
            case nil, .null?: arguments = [:]
            case .object(let fields)?: arguments = fields
            default: throw .invalidParams("'arguments' must be an object")
            }
            var result = await tools.call(name, arguments).json
            if case .modern = era, case .object(var fields) = result {
                fields["resultType"] = "complete"
                result = .object(fields)
            }
            return result
        default:
            throw .methodNotFound(method)
        }
    }

    /// A 2026-era result a client may keep (``cacheMilliseconds``; nothing in it is the
    /// user's own, so any cache may share it).
    private static func cacheable(_ fields: [String: JSONValue]) -> JSONValue {
        var fields = fields
        fields["resultType"] = "complete"
        fields["ttlMs"] = .number(Double(cacheMilliseconds))
        fields["cacheScope"] = "public"
        return .object(fields)
    }

    private func send(_ error: JSONRPCError, to id: JSONValue) async {
        await send(["jsonrpc": "2.0", "id": id, "error": error.json])
    }

    private func send(_ message: JSONValue) async {
        guard let bytes = try? message.encodedBytes() else { return }
        await transport.send(bytes)
    }
}
