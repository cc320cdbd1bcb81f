import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import PushgateServer

/// Web apps calling from a browser (`PUSHGATE_CORS_ORIGINS`, issue 75: a service
/// worker confirms its pushes): only the origins named get CORS headers.
@Suite("Allowed origins and the service worker's script")
struct AllowedOriginsTests {
    static let app = "https://app.example.com"

    @Test("an allowed origin's preflight is answered; its calls carry the header, errors too; others get none")
    func allowed() async throws {
        try await RouterFixture().withClient(corsOrigins: [Self.app]) { client in
            let preflight = try await client.execute(
                uri: "/receipts", method: .options,
                headers: [.origin: Self.app, .accessControlRequestMethod: "POST"])
            #expect(preflight.status == .noContent)
            #expect(preflight.headers[.accessControlAllowOrigin] == Self.app)
            #expect(preflight.headers[.accessControlAllowHeaders]?.contains("Authorization") == true)
            #expect(preflight.headers[.accessControlAllowMethods]?.contains("POST") == true)
            #expect(preflight.headers[.vary] == "Origin")

            let refused = try await client.execute(
                uri: "/receipts", method: .post, headers: [.origin: Self.app, .contentType: "application/json"],
                body: ByteBuffer(string: "{}"))
            #expect(refused.status == .unauthorized && refused.headers[.accessControlAllowOrigin] == Self.app)

            for origin in ["https://evil.example.com", "null", "https://app.example.com:8443"] {
                let other = try await client.execute(
                    uri: "/receipts", method: .options, headers: [.origin: origin, .accessControlRequestMethod: "POST"])
                #expect(other.headers[.accessControlAllowOrigin] == nil, "\(origin)")
                #expect(other.status != .noContent, "\(origin)")
            }
            let noOrigin = try await client.execute(uri: "/healthz", method: .get)
            #expect(noOrigin.headers[.accessControlAllowOrigin] == nil)
        }
    }

    @Test("without PUSHGATE_CORS_ORIGINS no origin gets a CORS header")
    func none() async throws {
        try await RouterFixture().withClient { client in
            let preflight = try await client.execute(
                uri: "/receipts", method: .options, headers: [.origin: Self.app, .accessControlRequestMethod: "POST"])
            #expect(preflight.headers[.accessControlAllowOrigin] == nil)
        }
    }

    @Test("the service worker's script is served at /pushgate-sw.js as web/ has it, as JavaScript")
    func serviceWorker() async throws {
        let text = try String(
            contentsOf: WebPagesTests.web.appendingPathComponent("pushgate-sw.js"), encoding: .utf8)
        try await RouterFixture().withClient { client in
            let response = try await client.execute(uri: "/pushgate-sw.js", method: .get)
            #expect(response.status == .ok && String(buffer: response.body) == text)
            #expect(response.headers[.contentType]?.hasPrefix("text/javascript") == true)
        }
    }

    @Test(
        "origins as a browser sends them; anything else refused",
        arguments: [
            ("https://App.Example.com", "https://app.example.com"), ("http://localhost:8080", "http://localhost:8080"),
            ("https://app.example.com:443", "https://app.example.com"), ("http://10.0.0.2:80", "http://10.0.0.2"),
            ("https://app.example.com/", nil), ("https://app.example.com/path", nil), ("*", nil),
            ("ftp://app.example.com", nil), ("https://user@app.example.com", nil), ("app.example.com", nil),
            ("https://app.example.com?x=1", nil), ("https://h:99999999999999999999", nil), ("https://h:0", nil),
            ("", nil),
        ] as [(String, String?)])
    func origins(text: String, normalized: String?) {
        #expect(WebOrigin.normalized(text) == normalized)
    }
}
