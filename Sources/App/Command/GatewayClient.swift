import ArgumentParser
import Foundation
import PushgateAgentSide
import PushgateCore

/// Calls one function of a running gateway and prints its answer: what `pushgate
/// trigger`, `subscribe`, `decide` and the other calls share, over the agent's side's
/// HTTP gateway (``HTTPAgentGateway``).
struct GatewayClient {
    let http: HTTPAgentGateway
    let secret: PushSecret
    let timeout: Duration

    init(baseURL: String, secret: PushSecret, timeout: Duration) {
        http = HTTPAgentGateway(baseURL: baseURL, secret: secret)
        self.secret = secret
        self.timeout = timeout
    }

    /// POSTs `body` to `function`, prints the answer to standard output, and fails
    /// with exit status 1 on an error answer or when the gateway cannot be reached.
    func call(_ function: String, body: [String: JSONValue]) async throws {
        try printed(await send { try await http.post(path: function, body: body, timeout: timeout) })
    }

    /// GETs `function` with `query`, like ``call(_:body:)`` otherwise.
    func get(_ function: String, query: [String: String] = [:]) async throws {
        try printed(await send { try await http.get(path: function, query: query, timeout: timeout) })
    }

    private func send(_ call: () async throws -> GatewayReply) async throws -> GatewayReply {
        do {
            return try await call()
        } catch {
            throw CommandFailure("\(error)")
        }
    }

    /// Prints an answer; exit status 1 unless it is a success.
    private func printed(_ reply: GatewayReply) throws {
        print(String(decoding: reply.body, as: UTF8.self))
        guard reply.isSuccess else { throw ExitCode.failure }
    }
}
