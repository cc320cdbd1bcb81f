import ArgumentParser
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import PushgateCore

/// Calls one function of a running gateway and prints its answer.
struct GatewayClient {
    let baseURL: String
    let secret: PushSecret
    let timeout: Duration

    /// POSTs `body` to `function`, prints the answer to standard output, and fails
    /// with exit status 1 on an error answer or when the gateway cannot be reached.
    func call(_ function: String, body: [String: JSONValue]) async throws {
        try printed(await post(function, body: body))
    }

    /// POSTs `body` to `function`: the answer's status and text, printed nowhere.
    func post(_ function: String, body: [String: JSONValue]) async throws -> (status: UInt, text: String) {
        var request = HTTPClientRequest(url: url(of: function))
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: try JSONValue.object(body).encodedData()))
        return try await send(request)
    }

    /// GETs `function` with `query`, like ``call(_:body:)`` otherwise.
    func get(_ function: String, query: [String: String] = [:]) async throws {
        try printed(await fetch(function, query: query))
    }

    /// GETs `function` with `query`: the answer's status and text, printed nowhere.
    func fetch(_ function: String, query: [String: String] = [:]) async throws -> (status: UInt, text: String) {
        var components = URLComponents()
        components.queryItems =
            query.isEmpty ? nil : query.keys.sorted().map { URLQueryItem(name: $0, value: query[$0]) }
        var request = HTTPClientRequest(
            url: url(of: function) + (components.percentEncodedQuery.map { "?" + $0 } ?? ""))
        request.method = .GET
        return try await send(request)
    }

    /// Prints an answer; exit status 1 unless it is a success.
    private func printed(_ answer: (status: UInt, text: String)) throws {
        print(answer.text)
        guard (200..<300).contains(answer.status) else { throw ExitCode.failure }
    }

    private func url(of function: String) -> String {
        baseURL.hasSuffix("/") ? baseURL + function : baseURL + "/" + function
    }

    private func send(_ request: HTTPClientRequest) async throws -> (status: UInt, text: String) {
        var request = request
        let url = request.url
        request.headers.add(name: "Authorization", value: "Bearer \(secret.value)")

        var configuration = HTTPClient.Configuration()
        // A gateway that is not listening is reported at once rather than retried
        // until the deadline: a proxy's hook should not wait for nothing.
        configuration.connectionPool.retryConnectionEstablishment = false
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        let outcome: Result<(status: UInt, answer: ByteBuffer), CommandFailure>
        do {
            let response = try await client.execute(request, timeout: .init(timeout))
            outcome = .success((response.status.code, try await response.body.collect(upTo: 16 * 1024 * 1024)))
        } catch let error as HTTPClientError where error == .deadlineExceeded {
            outcome = .failure(CommandFailure("\(url) did not answer within \(timeout)"))
        } catch {
            outcome = .failure(CommandFailure("cannot reach \(url): \(error)"))
        }
        try await client.shutdown()

        let (status, answer) = try outcome.get()
        return (status, String(buffer: answer))
    }
}
