import Crypto
import Foundation
import PushgateCore
import PushgateHTTP2
import PushgateProviderKit
import PushgateSealing
import PushgateTesting
import PushgateWebPush
import Testing

/// VAPID, the plaintext's fit, the answers.
@Suite("Web Push rules")
struct WebPushRulesTests {
    @Test(
        "VAPID: vapid t=<ES256 JWT: aud the origin, exp within 24 h, sub>, k=<public key>; one token per origin, reused"
    )
    func vapid() throws {
        let key = VAPIDKey(privateKey: P256.Signing.PrivateKey())
        let clock = TestClock(Date(timeIntervalSince1970: 1_800_000_000))
        let tokens = VAPIDTokens(key: key, subject: "mailto:ops@example.com", now: clock.now)
        let header = try tokens.authorization(for: "https://push.example:8443")
        let parts = header.split(separator: " ")
        #expect(parts.first == "vapid")
        let token = String(try #require(header.firstMatch(of: /t=([^,]+)/)?.1))
        let publicKey = String(try #require(header.firstMatch(of: /k=(\S+)/)?.1))
        #expect(publicKey == key.publicKeyBase64URL)
        let pieces = token.split(separator: ".")
        #expect(pieces.count == 3)
        let claims = try JSONValue.parse(Array(try #require(Base64URL.decode(pieces[1]))))
        #expect(claims.objectValue?["aud"] == "https://push.example:8443")
        #expect(claims.objectValue?["sub"] == "mailto:ops@example.com")
        guard case .number(let exp)? = claims.objectValue?["exp"] else {
            Issue.record("no exp")
            return
        }
        #expect(exp > 1_800_000_000 && exp <= 1_800_000_000 + 86_400)
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: try #require(Base64URL.decode(pieces[2])))
        #expect(key.privateKey.publicKey.isValidSignature(signature, for: Data("\(pieces[0]).\(pieces[1])".utf8)))

        #expect(try tokens.authorization(for: "https://push.example:8443") == header, "reused, not signed again")
        #expect(try tokens.authorization(for: "https://other.example") != header, "each origin its own audience")
        clock.advance(by: VAPIDTokens.lifetime - VAPIDTokens.renewalMargin + 1)
        #expect(try tokens.authorization(for: "https://push.example:8443") != header, "renewed before it expires")
    }

    @Test(
        "the plaintext: title, body and FCM's data as strings, within one record; a long preview is cut, the data kept")
    func plaintext() throws {
        var notification = PushNotification(
            title: "my-agent", body: String(repeating: "é", count: 5000),
            data: ["type": "reply_finished", "server_key": "abc", "cwd": "/srv/agent", "count": 3],
            collapseID: "agent", urgency: .normal)
        let bytes = try SealedPlaintext.encode(notification, badge: nil, maxBytes: SealedRecord.maxPlaintext)
        #expect(bytes.count <= SealedRecord.maxPlaintext)
        let object = try #require(try JSONValue.parse(bytes).objectValue)
        #expect(object["title"] == "my-agent")
        #expect((object["body"]?.stringValue?.count ?? 0) > 1000)
        #expect(object["data"] == ["type": "reply_finished", "server_key": "abc", "cwd": "/srv/agent", "count": "3"])

        notification.body = "short"
        notification.showsBadge = true
        let withBadge = try JSONValue.parse(
            try SealedPlaintext.encode(notification, badge: 4, maxBytes: SealedRecord.maxPlaintext)
        ).objectValue
        #expect(withBadge?["data"]?.objectValue?["badge"] == "4")
        let update = try JSONValue.parse(
            try SealedPlaintext.encode(.badgeUpdate(serverKey: "abc"), badge: 2, maxBytes: SealedRecord.maxPlaintext)
        ).objectValue
        #expect(update?["data"] == ["type": "badge_update", "server_key": "abc", "badge": "2"])
    }

    @Test("answers: 2xx delivered, 404/410 deleted, 429 that endpoint after Retry-After, 413/400 failed, 5xx retried")
    func responses() {
        func verdict(_ status: Int, _ retryAfter: String? = nil) -> PushVerdict {
            PushVerdict(WebPushResponse.response(status: status, retryAfter: retryAfter))
        }
        #expect(verdict(201) == .delivered)
        #expect(verdict(202) == .delivered)
        // RFC 8030 §5: the push's URL at the service, its name in the event's timeline.
        #expect(
            PushVerdict(WebPushResponse.response(status: 201, retryAfter: nil, location: "https://push.example/m/7"))
                == .deliveredAs(messageID: "https://push.example/m/7"))
        #expect(
            PushVerdict(WebPushResponse.response(status: 201, retryAfter: nil, location: "https://x/ y")) == .delivered)
        #expect(verdict(410) == .deleteToken(reason: "Gone"))
        #expect(verdict(404) == .deleteToken(reason: "NotFound"))
        #expect(verdict(429, "7") == .retry(reason: "TooManyRequests", after: .seconds(7)))
        #expect(verdict(413) == .permanentFailure(reason: "PayloadTooLarge"))
        #expect(verdict(400) == .permanentFailure(reason: "BadRequest"))
        #expect(verdict(403) == .permanentFailure(reason: "VAPIDRefused"))
        #expect(verdict(503) == .retry(reason: "ServerError", after: nil))
        #expect(PushVerdict(WebPushResponse.transportFailure(.connectionLost)) == .unanswered(reason: "ConnectionLost"))
        #expect(PushVerdict(WebPushResponse.transportFailure(.goAway(debugData: nil))) == .resend(reason: "GoAway"))
    }

    @Test("a passive push (quiet hours) is shown silent: no sound, no vibration; others are not marked")
    func silentWhenPassive() throws {
        var notification = PushNotification(title: "t", body: "b", data: [:], collapseID: "c")
        let loud = try JSONValue.parse(
            try SealedPlaintext.encode(notification, badge: nil, maxBytes: SealedRecord.maxPlaintext))
        #expect(loud.objectValue?["silent"] == nil)
        notification.interruptionLevel = "passive"
        let quiet = try JSONValue.parse(
            try SealedPlaintext.encode(notification, badge: nil, maxBytes: SealedRecord.maxPlaintext))
        #expect(quiet.objectValue?["silent"] == true)
    }

    @Test("the declarative message: its marker, the page to open, the badge, silent when passive, cut to fit")
    func declarativeMessage() throws {
        var approval = PushNotification(
            title: "Approval needed", body: String(repeating: "é", count: 5000),
            data: ["type": "approval_requested", "event_id": "e1", "count": 3], collapseID: "c", showsBadge: true)
        let bytes = try DeclarativeMessage.encode(
            approval, badge: 2, navigate: "https://app.example/e1", tag: "t", maxBytes: SealedRecord.maxPlaintext)
        #expect(bytes.count <= SealedRecord.maxPlaintext)
        let message = try #require(try JSONValue.parse(bytes).objectValue)
        #expect(message["web_push"] == 8030)
        let shown = try #require(message["notification"]?.objectValue)
        #expect(shown["title"] == "Approval needed" && shown["navigate"] == "https://app.example/e1")
        #expect(shown["app_badge"] == 2 && shown["tag"] == "t" && shown["mutable"] == true && shown["silent"] == nil)
        #expect(shown["data"]?.objectValue?["count"] == "3" && shown["data"]?.objectValue?["badge"] == "2")
        #expect((shown["body"]?.stringValue?.count ?? 0) > 1000, "the preview cut to fit, not dropped")

        approval.showsBadge = false
        approval.interruptionLevel = "passive"
        let quiet = try JSONValue.parse(
            try DeclarativeMessage.encode(
                approval, badge: 2, navigate: "https://app.example/", tag: nil, maxBytes: SealedRecord.maxPlaintext))
        let quietShown = quiet.objectValue?["notification"]?.objectValue
        #expect(quietShown?["silent"] == true && quietShown?["app_badge"] == nil && quietShown?["tag"] == nil)
    }

    @Test("urgency per event type: high for approvals, low for badge updates, normal otherwise")
    func urgency() {
        #expect(EventUrgencies.defaults.urgency(of: "approval_requested").pushUrgency == .high)
        #expect(EventUrgencies.defaults.urgency(of: "reply_finished").pushUrgency == .normal)
        #expect(PushNotification.badgeUpdate(serverKey: "k").urgency == .low)
    }
}
