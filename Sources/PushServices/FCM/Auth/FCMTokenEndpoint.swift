import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL
import PushgateHTTP2

/// The service account's `token_uri`, asked over HTTPS (async-http-client: one call
/// an hour needs no hand-made client): the JWT-bearer grant, form-encoded.
public final class FCMTokenEndpoint: Sendable {
    private let url: String
    private let client: HTTPClient
    private let caFileName: String
    private let timeout: Duration

    /// - Parameters:
    ///   - extraTrustedCAFile: PEM roots trusted besides the system's (an emulator's).
    ///   - caFileName: what the operator calls that setting, in errors.
    ///   - timeout: how long the exchange may take.
    public init(url: String, extraTrustedCAFile: String?, caFileName: String, timeout: Duration = .seconds(10))
        throws(FCMConfigurationError)
    {
        let tls: TLSConfiguration
        do {
            tls = try ClientTLS.configuration(extraTrustedCAFile: extraTrustedCAFile, setting: caFileName)
        } catch {
            throw FCMConfigurationError(error.description)
        }
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
        configuration.timeout = .init(connect: TimeAmount(timeout), read: TimeAmount(timeout))
        self.url = url
        self.timeout = timeout
        self.caFileName = caFileName
        self.client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// Trades `assertion` for an access token and its lifetime in seconds.
    public func exchange(_ assertion: String) async throws(FCMTokenError) -> (String, Int) {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        // A JWT is base64url and dots: nothing in it needs percent-encoding.
        request.body = .bytes(
            ByteBuffer(
                string: "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(assertion)"))
        let status: UInt
        let body: ByteBuffer
        do {
            let response = try await client.execute(request, timeout: TimeAmount(timeout))
            status = response.status.code
            body = try await response.body.collect(upTo: 64 * 1024)
        } catch {
            throw .unavailable(describe(error))
        }
        let json = (try? JSONSerialization.jsonObject(with: Data(body.readableBytesView))) as? [String: Any]
        guard status == 200 else {
            // Google's OAuth errors: {"error": "invalid_grant", "error_description": "…"}; no secret in them.
            let text = [json?["error"] as? String, json?["error_description"] as? String].compactMap { $0 }
                .joined(separator: ": ")
            let reason = "HTTP \(status)" + (text.isEmpty ? "" : " \(text.prefix(200))")
            if status >= 500 || status == 429 { throw .unavailable(reason) }
            throw .refused(reason)
        }
        guard let token = json?["access_token"] as? String, !token.isEmpty else {
            throw .unavailable("the answer holds no access_token")
        }
        return (token, Self.lifetime(json?["expires_in"]))
    }

    /// `expires_in` as whole seconds from 1 to a day; Google's hour (3,600) when it is
    /// absent, not a number, or out of that range (an answer must not trap the
    /// gateway, nor keep a token for ever).
    public static func lifetime(_ value: Any?) -> Int {
        let seconds = (value as? NSNumber)?.doubleValue ?? .nan
        guard seconds.isFinite, seconds >= 1, seconds <= 86_400 else { return 3600 }
        return Int(seconds)
    }

    public func shutdown() async {
        try? await client.shutdown()
    }

    private func describe(_ error: any Error) -> String {
        let error = HTTP2ConnectionError(describing: error)
        guard error.isUntrustedCertificate else { return error.description }
        return error.description + " (an emulator's CA goes in \(caFileName))"
    }
}
