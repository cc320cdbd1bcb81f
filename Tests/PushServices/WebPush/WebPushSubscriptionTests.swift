import Foundation
import PushgateCore
import PushgateWebPush
import Testing

/// What a registration's `webpush` may be, and how it is stored.
@Suite("Web Push subscriptions")
struct WebPushSubscriptionTests {
    /// The receiver's keys of RFC 8291's example (Appendix A).
    static let p256dh = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
    static let auth = "BTBZMqHH6r4Tts7J_aSIgg"
    static let keys: [String: JSONValue] = [
        "p256dh": .string(Self.p256dh),
        "auth": .string(Self.auth),
    ]

    static func subscription(
        _ endpoint: String, keys: JSONValue = .object(keys), rules: WebPushEndpoint.Rules = .init()
    )
        throws(FunctionError) -> WebPushSubscription
    {
        try WebPushSubscription(
            registered: ["endpoint": .string(endpoint), "keys": keys, "expirationTime": .null], field: "webpush",
            rules: rules)
    }

    @Test("a browser's subscription is stored as one JSON text, the same each time, and reads back")
    func stored() throws {
        let subscription = try Self.subscription("https://fcm.googleapis.com/fcm/send/abc:DEF?x=1")
        let text = subscription.storedText
        #expect(
            text
                == #"{"endpoint":"https://fcm.googleapis.com/fcm/send/abc:DEF?x=1","p256dh":"\#(Self.p256dh)","auth":"\#(Self.auth)"}"#
        )
        #expect(WebPushSubscription(stored: text) == subscription)
        #expect(subscription.endpoint.origin == "https://fcm.googleapis.com")
        #expect(subscription.endpoint.pathAndQuery == "/fcm/send/abc:DEF?x=1")
        #expect(
            subscription.endpoint.description == "https://fcm.googleapis.com", "the path is a capability: never shown")
        // Padded keys are the same keys: the same stored text.
        let padded = try Self.subscription(
            "https://fcm.googleapis.com/fcm/send/abc:DEF?x=1",
            keys: [
                "p256dh": .string(Self.p256dh), "auth": "BTBZMqHH6r4Tts7J_aSIgg==",
            ])
        #expect(padded.storedText == text)
        for bad in [
            "", "{}", #"{"endpoint":"https://a.example/x"}"#, text + "x",
            text.replacingOccurrences(of: "}", with: #","more":1}"#),
        ] {
            #expect(WebPushSubscription(stored: bad) == nil, "\(bad)")
        }
    }

    @Test(
        "endpoints refused, the field named: not https, over 1,000 bytes, user info, a private or odd host",
        arguments: [
            "http://push.example/x", "ftp://push.example/x", "push.example/x", "https:///x",
            "https://user@push.example/x",
            "https://u:p@push.example/x", "https://push.example/x#frag", "https://127.0.0.1/x", "https://10.1.2.3/x",
            "https://172.20.0.1/x", "https://192.168.1.1/x", "https://169.254.169.254/latest", "https://0.0.0.0/x",
            "https://100.64.0.1/x", "https://224.0.0.1/x", "https://255.255.255.255/x", "https://[::1]/x",
            "https://[::]/x", "https://[fe80::1]/x", "https://[fd00::1]/x", "https://[ff02::1]/x",
            "https://[::ffff:127.0.0.1]/x", "https://[::ffff:10.0.0.1]/x", "https://[64:ff9b::a00:1]/x",
            "https://127.1/x",
            "https://2130706433/x", "https://0x7f.0.0.1/x", "https://%31%32%37.0.0.1/x", "https://bad_host!/x",
            "https://push.example:0/x", "https://" + String(repeating: "a", count: 990) + ".example/",
            // Ports that overflow, or are no number (issue 71): never the default.
            "https://push.example:99999999999999999999/x", "https://push.example:65536/x",
            "https://push.example:18446744073709551617/x", "https://push.example:+443/x", "https://[2a00::1]:99999/x",
            // IPv6 that embeds another address, leading inward where it is translated.
            "https://[64:ff9b:1::a00:1]/x", "https://[64:ff9b:1:ffff::808:808]/x", "https://[::ffff:0:a00:1]/x",
            "https://[::ffff:0:808:808]/x", "https://[::ffff:8.8.8.8]/x", "https://[2002:7f00:1::1]/x",
            "https://[2002:808:808::1]/x", "https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/x", "https://[2001:2::1]/x",
            "https://[100::1]/x", "https://[100::ffff:7f00:1]/x", "https://[3fff::1]/x", "https://[::7f00:1]/x",
            "https://[::1:7f00:1]/x", "https://192.88.99.1/x",
            // Two trailing dots, a dot alone, a percent-encoded name.
            "https://push.example../x", "https://./x", "https://%62ad.example/x",
        ])
    func refusedEndpoint(_ endpoint: String) {
        #expect {
            try Self.subscription(endpoint)
        } throws: { error in
            (error as? FunctionError)?.field == "webpush.endpoint"
        }
    }

    @Test("public hosts and addresses are taken; http and private ones only when the settings allow")
    func allowedEndpoint() throws {
        for endpoint in [
            "https://updates.push.services.mozilla.com/wpush/v2/gAAA", "https://web.push.apple.com/QGuQ",
            "https://ntfy.sh/upAbc?up=1", "https://8.8.8.8/x", "https://[2a00:1450:4001::1]/x",
            "https://push.example:8443/x",
        ] {
            _ = try Self.subscription(endpoint)
        }
        let lan = WebPushEndpoint.Rules(allowsHTTP: true, allowsPrivateAddresses: true)
        let local = try Self.subscription("http://192.168.1.20:8080/up/abc", rules: lan)
        #expect(local.endpoint.origin == "http://192.168.1.20:8080")
        #expect(try Self.subscription("https://[::1]:8443/x", rules: lan).endpoint.origin == "https://[::1]:8443")
        #expect(throws: FunctionError.self) {
            try Self.subscription("http://192.168.1.20/x", rules: .init(allowsPrivateAddresses: true))
        }
    }

    @Test(
        "one spelling of a host (lower case, no trailing dot) checked, pooled, signed for and requested; the port as written"
    )
    func oneSpelling() throws {
        let endpoint = try Self.subscription("HTTPS://Push.EXAMPLE.:8443/Wpush/AbC?Q=1").endpoint
        #expect(endpoint.host == "push.example" && endpoint.port == 8443)
        #expect(endpoint.origin == "https://push.example:8443")
        #expect(endpoint.requestURL == "https://push.example:8443/Wpush/AbC?Q=1", "the path as written: a capability")
        #expect(try Self.subscription("https://push.example:/x").endpoint.port == 443, "an empty port: the default")
        #expect(try Self.subscription("https://push.example:00443/x").endpoint.origin == "https://push.example")
        for idn in ["https://xn--bcher-kva.example/x", "https://bücher.example/x", "https://BÜCHER.Example./x"] {
            #expect(try Self.subscription(idn).endpoint.origin == "https://xn--bcher-kva.example", "\(idn)")
        }
        #expect(try Self.subscription("https://[64:ff9b::808:808]/x").endpoint.host == "64:ff9b::808:808")
        #expect(try Self.subscription("https://[2A00:1450::1]/x").endpoint.requestURL == "https://[2a00:1450::1]/x")
        let lan = WebPushEndpoint.Rules(allowsHTTP: true, allowsPrivateAddresses: true)
        #expect(
            try Self.subscription("http://LOCALHOST.:8080/up", rules: lan).endpoint.requestURL
                == "http://localhost:8080/up")
    }

    @Test("keys refused, the key named")
    func refusedKeys() {
        let cases: [(JSONValue, String)] = [
            (.null, "webpush.keys"), ("text", "webpush.keys"), (["auth": Self.keys["auth"]!], "webpush.keys"),
            (["p256dh": "AAAA", "auth": Self.keys["auth"]!], "webpush.keys.p256dh"),
            (["p256dh": Self.keys["p256dh"]!, "auth": "AAAA"], "webpush.keys.auth"),
        ]
        for (keys, field) in cases {
            #expect {
                try Self.subscription("https://push.example/x", keys: keys)
            } throws: { error in
                (error as? FunctionError)?.field == field
            }
        }
    }

    @Test(
        "members other than the endpoint and keys are ignored, as unknown fields are; expirationTime a number or null")
    func otherMembers() throws {
        let format = WebPushAddress.format
        let body = RequestFields([
            "webpush": [
                "endpoint": "https://push.example/x", "keys": .object(Self.keys), "expirationTime": 1_800_000_000_000,
                "extra\u{1}": ["nested": "\u{3}"],
            ]
        ])
        #expect(try format.address(in: body) != nil)
        #expect {
            try format.address(
                in: RequestFields([
                    "webpush": [
                        "endpoint": "https://push.example/x", "keys": .object(Self.keys), "expirationTime": "soon",
                    ]
                ]))
        } throws: { error in
            (error as? FunctionError)?.field == "webpush.expirationTime"
        }
    }

    @Test("the registration field: an object, checked; absent is no address")
    func registrationField() throws {
        let format = WebPushAddress.format
        let body = RequestFields([
            "webpush": ["endpoint": "https://push.example/x", "keys": .object(Self.keys)]
        ])
        let stored = try #require(try format.address(in: body))
        #expect(format.isStored(stored))
        #expect(try format.address(in: RequestFields([:])) == nil)
        // A look-up by token may name the browser's JSON of it: the stored text is found.
        let browserJSON =
            #"{"endpoint":"https://push.example/x","expirationTime":null,"keys":{"p256dh":"\#(Self.p256dh)","auth":"\#(Self.auth)"}}"#
        #expect(format.stored(browserJSON) == stored)
        #expect(!format.isStored(browserJSON), "a dump holds the stored form only")
        #expect(throws: FunctionError.self) { try format.address(in: RequestFields(["webpush": "https://x"])) }
    }
}
