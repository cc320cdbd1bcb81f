import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import PushgateServer
import Testing

/// The console's page and files as the gateway serves them; what they show is the
/// browser test's (`Tests/browser/console_and_phone.py`).
@Suite("The web console's files")
struct WebPagesTests {
    static let web = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("web")

    static func files() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: web.path).sorted()
    }

    @Test("/console and the style and scripts of web/ under /console/assets/, as the files are, with a strict policy")
    func served() async throws {
        let files = try Self.files()
        try await RouterFixture().withClient(servesConsole: true) { client in
            // The other pages (the emulators' phone) are not the console's.
            for name in files where name == "console.html" || !name.hasSuffix(".html") {
                let uri = name == "console.html" ? "/console" : "/console/assets/\(name)"
                let response = try await client.execute(uri: uri, method: .get)
                #expect(response.status == .ok, "\(uri)")
                let text = try String(contentsOf: Self.web.appendingPathComponent(name), encoding: .utf8)
                #expect(String(buffer: response.body) == text, "\(uri) is not web/\(name)")
                let policy = try #require(response.headers[.contentSecurityPolicy])
                #expect(policy.contains("script-src 'self'") && policy.contains("default-src 'none'"))
                #expect(!policy.contains("unsafe"), "no inline script or style is allowed")
                #expect(response.headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff")
                let type = response.headers[.contentType] ?? ""
                #expect(type.hasPrefix(name.hasSuffix(".js") ? "text/javascript" : "text/"), "\(uri): \(type)")

                let head = try await client.execute(uri: uri, method: .head)
                #expect(head.status == .ok && head.body.readableBytes == 0)
                let tag = try #require(response.headers[.eTag])
                let again = try await client.execute(uri: uri, method: .get, headers: [.ifNoneMatch: tag])
                #expect(again.status == .notModified && again.body.readableBytes == 0)
            }
            let post = try await client.execute(uri: "/console", method: .post)
            #expect(post.status == .methodNotAllowed)
            #expect(try await client.execute(uri: "/console/assets/nothing.js", method: .get).status == .notFound)
            #expect(try await client.execute(uri: "/console/assets/phone.html", method: .get).status == .notFound)
        }
    }

    @Test("PUSHGATE_CONSOLE=off: /console is a path like any unknown one")
    func off() async throws {
        try await RouterFixture().withClient(servesConsole: false) { client in
            let response = try await client.execute(uri: "/console", method: .get)
            #expect(response.status == .notFound)
            #expect(response.errorStatus == "NOT_FOUND")
        }
    }

    /// What the Content-Security-Policy would refuse at run time, refused here first:
    /// no inline script or style, no handler attributes, no markup built from text.
    @Test("the pages carry no inline script, style or handler, and the scripts never write HTML")
    func nothingInline() throws {
        for name in try Self.files() {
            let text = try String(contentsOf: Self.web.appendingPathComponent(name), encoding: .utf8)
            if name.hasSuffix(".html") {
                let scripts = text.components(separatedBy: "<script").dropFirst()
                #expect(scripts.allSatisfy { $0.hasPrefix(" type=\"module\" src=") }, "\(name): an inline script")
                #expect(!text.contains("<style") && !text.contains(" style="), "\(name): an inline style")
                #expect(text.range(of: #" on[a-z]+="#, options: .regularExpression) == nil, "\(name): a handler")
                #expect(
                    text.range(of: #"(src|href|action)="(https?:)?//"#, options: .regularExpression) == nil,
                    "\(name): fetches from elsewhere")
            }
            if name.hasSuffix(".js") {
                for forbidden in [
                    "innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function",
                ] {
                    #expect(!text.contains(forbidden), "\(name) uses \(forbidden)")
                }
                #expect(!text.contains("localStorage"), "\(name): the secret stays in sessionStorage")
            }
        }
    }
}
