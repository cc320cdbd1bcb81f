import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import PushgateAgentHooks
import PushgateCore

/// The gateway over HTTP (AsyncHTTPClient), the push secret as the bearer of every
/// call. A gateway that is not listening is reported at once rather than retried
/// until the deadline: a hook should not wait for nothing.
public struct HTTPAgentGateway: AgentGateway {
    public let baseURL: String
    private let secret: PushSecret

    /// The largest answer read: a page of devices is well under it.
    static let maxAnswerBytes = 16 * 1024 * 1024

    public init(baseURL: String, secret: PushSecret) {
        self.baseURL = baseURL
        self.secret = secret
    }

    public var serverKey: ServerKey { secret.serverKey }

    public func post(_ function: GatewayFunction, _ body: [String: JSONValue], timeout: Duration) async throws
        -> GatewayReply
    {
        try await post(path: function.rawValue, body: body, timeout: timeout)
    }

    public func get(_ function: GatewayFunction, query: [String: String], timeout: Duration) async throws
        -> GatewayReply
    {
        try await get(path: function.rawValue, query: query, timeout: timeout)
    }

    /// GETs any path of the gateway (`replies`, a command's own): its answer.
    public func get(path: String, query: [String: String], timeout: Duration) async throws -> GatewayReply {
        var components = URLComponents()
        components.queryItems =
            query.isEmpty ? nil : query.keys.sorted().map { URLQueryItem(name: $0, value: query[$0]) }
        var request = HTTPClientRequest(url: url(of: path) + (components.percentEncodedQuery.map { "?" + $0 } ?? ""))
        request.method = .GET
        return try await send(request, timeout: timeout)
    }

    /// POSTs `body` to any path of the gateway (a command's own function): its answer.
    public func post(path: String, body: [String: JSONValue], timeout: Duration) async throws -> GatewayReply {
        var request = HTTPClientRequest(url: url(of: path))
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: try JSONValue.object(body).encodedBytes()))
        return try await send(request, timeout: timeout)
    }

    private func url(of path: String) -> String {
        baseURL.hasSuffix("/") ? baseURL + path : baseURL + "/" + path
    }

    private func send(_ request: HTTPClientRequest, timeout: Duration) async throws -> GatewayReply {
        var request = request
        let url = request.url
        request.headers.add(name: "Authorization", value: "Bearer \(secret.value)")
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        let outcome: Result<GatewayReply, GatewayUnreachable>
        do {
            let response = try await client.execute(request, timeout: .init(timeout))
            let body = try await response.body.collect(upTo: Self.maxAnswerBytes)
            outcome = .success(GatewayReply(status: response.status.code, body: Array(body.readableBytesView)))
        } catch let error as HTTPClientError where error == .deadlineExceeded {
            outcome = .failure(GatewayUnreachable(description: "\(url) did not answer within \(timeout)"))
        } catch {
            outcome = .failure(GatewayUnreachable(description: "cannot reach \(url): \(error)"))
        }
        try await client.shutdown()
        return try outcome.get()
    }
}

/// No answer came: the gateway is not listening, not reachable, or too slow.
public struct GatewayUnreachable: Error, CustomStringConvertible {
    public let description: String

    public init(description: String) {
        self.description = description
    }
}
