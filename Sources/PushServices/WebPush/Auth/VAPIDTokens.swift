import Crypto
import Foundation
import NIOConcurrencyHelpers
import PushgateCore
import PushgateSealing

/// The `Authorization` header of every push to one origin: `vapid t=<JWT>, k=<public
/// key>`, the JWT (ES256; `aud` the origin, `exp`, `sub`) signed once per origin and
/// reused until it is close to expiring, not per push.
public final class VAPIDTokens: Sendable {
    /// How long a token is valid (RFC 8292 allows up to 24 hours).
    public static let lifetime: TimeInterval = 12 * 3600
    /// A token with less than this left is replaced.
    public static let renewalMargin: TimeInterval = 3600

    private let key: VAPIDKey
    private let subject: String
    private let publicKey: String
    private let now: @Sendable () -> Date
    private let headers = NIOLockedValueBox<[String: (value: String, expires: Date)]>([:])

    public init(key: VAPIDKey, subject: String, now: @escaping @Sendable () -> Date = Date.init) {
        self.key = key
        self.subject = subject
        self.publicKey = key.publicKeyBase64URL
        self.now = now
    }

    /// The header for a push to `origin` (`https://push.example:8443`).
    public func authorization(for origin: String) throws -> String {
        let now = self.now()
        if let cached = headers.withLockedValue({ $0[origin] }),
            cached.expires.timeIntervalSince(now) > Self.renewalMargin
        {
            return cached.value
        }
        let expires = now.addingTimeInterval(Self.lifetime)
        let value = "vapid t=\(try token(audience: origin, expires: expires)), k=\(publicKey)"
        headers.withLockedValue { headers in
            // A fan-out reaches a bounded set of origins; a store of millions of
            // endpoints could name more, so the cache does not grow without end.
            if headers.count >= 10_000 { headers.removeAll() }
            headers[origin] = (value, expires)
        }
        return value
    }

    /// The signed JWT: header `{"typ":"JWT","alg":"ES256"}`, claims `aud`, `exp`
    /// (seconds), `sub`; the signature raw r‖s, as JWS wants.
    public func token(audience: String, expires: Date) throws -> String {
        let header = #"{"typ":"JWT","alg":"ES256"}"#
        let claims = try JSONValue.object([
            "aud": .string(audience), "exp": .number(Double(Int(expires.timeIntervalSince1970))),
            "sub": .string(subject),
        ]).encodedData()
        let signingInput = Base64URL.encode(Data(header.utf8)) + "." + Base64URL.encode(claims)
        let signature = try key.privateKey.signature(for: Data(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature.rawRepresentation)
    }
}
