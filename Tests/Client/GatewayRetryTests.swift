import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOConcurrencyHelpers
import PushgateClient
import Testing

/// The gateway client's retries against a live HTTP server that answers as scripted:
/// the unit's edge is faked, the client's HTTP is real.
@Suite("Gateway client: 429 and 5xx retried, within the deadline")
struct GatewayRetryTests {
    static let secret = "pushgate-example-secret-0001-0123"
    static let pingAnswer = #"{"server_key":"29ee","agent_count":1,"device_count":2}"#

    /// Runs `body` with a client of a server whose `/ping` gives `answers` in turn
    /// (the last one again when they run out); returns what `body` returned and the
    /// requests the server saw. The deadlines are far beyond what the scripted answers
    /// take (`Retry-After: 0`, 10 ms backoffs): with the whole suite on two busy cores
    /// the first request alone once took more than 5 s.
    func withServer<Value: Sendable>(
        _ answers: [(status: HTTPResponse.Status, headers: HTTPFields, body: String)],
        retry: RetryPolicy = RetryPolicy(deadline: .seconds(60), base: .milliseconds(10), cap: .milliseconds(50)),
        _ body: @escaping @Sendable (PushgateGateway) async throws -> Value
    ) async throws -> (Value, Int) {
        let seen = NIOLockedValueBox(0)
        let router = Router()
        router.get("ping") { request, _ -> Response in
            let index = seen.withLockedValue { count in
                count += 1
                return min(count, answers.count) - 1
            }
            #expect(request.headers[.authorization] == "Bearer \(Self.secret)")
            let answer = answers[index]
            return Response(
                status: answer.status, headers: answer.headers, body: .init(byteBuffer: ByteBuffer(string: answer.body))
            )
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        let value = try await app.test(.live) { client in
            let port = try #require(client.port)
            return try await body(
                PushgateGateway(baseURL: try #require(URL(string: "http://127.0.0.1:\(port)")), retry: retry))
        }
        return (value, seen.withLockedValue { $0 })
    }

    static let busy = #"{"error":{"status":"RESOURCE_EXHAUSTED","message":"slow down"}}"#

    @Test("a 429 (Retry-After: 0) then a proxy's 503 page, then the answer: three requests, one answer")
    func retriedToSuccess() async throws {
        let (answer, requests) = try await withServer([
            (.tooManyRequests, [.retryAfter: "0"], Self.busy),
            (.serviceUnavailable, [.contentType: "text/html"], "<html>down</html>"),
            (.ok, [.contentType: "application/json"], Self.pingAnswer),
        ]) { gateway in try await gateway.ping(secret: Self.secret) }
        #expect(answer.deviceCount == 2 && requests == 3)
    }

    @Test("still busy after the tries allowed: the last error, with the gateway's JSON")
    func givesUp() async throws {
        let (error, requests) = try await withServer(
            [(.tooManyRequests, [.retryAfter: "0"], Self.busy)],
            retry: RetryPolicy(deadline: .seconds(60), base: .milliseconds(10), maxAttempts: 3)
        ) { gateway in
            do throws(PushgateError) {
                _ = try await gateway.ping(secret: Self.secret)
                return PushgateError.invalidRequest("answered")
            } catch {
                return error
            }
        }
        #expect(requests == 3)
        guard case .gateway(let refusal) = error else {
            Issue.record("\(error)")
            return
        }
        #expect(refusal.code == .resourceExhausted && refusal.message == "slow down" && refusal.retryAfter == .zero)
    }

    @Test("a 4xx is not retried; a success that is not the documented JSON is an invalid answer")
    func notRetried() async throws {
        let (notFound, once) = try await withServer([
            (.notFound, [:], #"{"error":{"status":"NOT_FOUND","message":"no such server"}}"#)
        ]) { gateway in
            do throws(PushgateError) {
                _ = try await gateway.ping(secret: Self.secret)
                return PushgateError.invalidRequest("answered")
            } catch {
                return error
            }
        }
        #expect(once == 1 && notFound.isTransient == false)
        let (garbled, _) = try await withServer([(.ok, [:], "[]")]) { gateway in
            do throws(PushgateError) {
                _ = try await gateway.ping(secret: Self.secret)
                return PushgateError.invalidRequest("answered")
            } catch {
                return error
            }
        }
        guard case .invalidAnswer(200, _) = garbled else {
            Issue.record("\(garbled)")
            return
        }
    }
}
