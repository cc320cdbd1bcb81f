import Crypto
import Foundation
import NIOHTTP1
import PushgateCore
import PushgateHTTP2
import PushgateSealing

/// The headers every push of one notification shares but `:path`: `TTL`,
/// `Content-Encoding`, `Urgency`, `Topic`, and per origin `:authority` and the VAPID
/// `Authorization`.
struct WebPushHeaders: Sendable {
    let timeToLive: Int
    let urgency: PushUrgency
    /// ≤ 32 base64url characters, the same for every push with this collapse id.
    let topic: String?

    init(_ notification: PushNotification, timeToLive: Int) {
        self.timeToLive = timeToLive
        urgency = notification.urgency
        topic = notification.collapseID.isEmpty ? nil : Self.topic(for: notification.collapseID)
    }

    /// A collapse id as a `Topic`: base64url of its SHA-256's first 24 bytes (32
    /// characters), as the collapse id itself may be longer or hold other characters.
    static func topic(for collapseID: String) -> String {
        Base64URL.encode(Array(SHA256.hash(data: Data(collapseID.utf8))).prefix(24))
    }

    /// The HTTP/2 header block: pseudo-headers (`:path` goes between) and the rest.
    func http2(authority: String, authorization: String) -> (pseudo: HTTP2HeaderBlock, regular: HTTP2HeaderBlock) {
        let pseudo = HTTP2HeaderBlock([(":method", "POST"), (":scheme", "https"), (":authority", authority)])
        var regular = HTTP2HeaderBlock(fields)
        regular.append(name: "authorization", value: authorization, sensitive: true)
        return (pseudo, regular)
    }

    /// The same headers for HTTP/1.1 (`Host` is the client's).
    func http1(authorization: String) -> HTTPHeaders {
        var headers = HTTPHeaders(fields)
        headers.add(name: "authorization", value: authorization)
        return headers
    }

    private var fields: [(String, String)] {
        var fields = [
            ("ttl", String(timeToLive)), ("content-encoding", "aes128gcm"),
            ("content-type", "application/octet-stream"), ("urgency", urgency.rawValue),
        ]
        if let topic { fields.append(("topic", topic)) }
        return fields
    }
}
