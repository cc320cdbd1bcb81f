import Foundation
import PushgateCore
import PushgateFCM
import PushgateSealing
import PushgateTesting
import Testing
import _CryptoExtras

@testable import PushgateEmulators

/// The FCM emulator refuses what FCM and Google's token endpoint refuse, with their
/// status and error.
@Suite("FCM emulator checks")
struct FCMEmulatorCheckTests {
    static let account = FCMEmulatorAccount.testAccount

    static func body(_ message: JSONValue, validateOnly: JSONValue? = nil) -> [UInt8] {
        var root: [String: JSONValue] = ["message": message]
        root["validate_only"] = validateOnly
        return Array(try! JSONValue.object(root).encodedData())
    }

    @Test(
        "messages FCM refuses",
        arguments: [
            (body(["topic": "news", "token": "t"]), "message"),
            (body(["notification": ["title": "t"]]), "message"),
            (body(["token": ""]), "message.token"),
            (body(["token": "t", "data": ["n": 1]]), "message.data[0].value"),
            (body(["token": "t", "data": ["a": "x", "b": true]]), "message.data[1].value"),
            (body(["token": "t", "data": "x"]), "message.data"),
            (
                body([
                    "token": "t", "apns": ["headers": ["apns-collapse-id": .string(String(repeating: "c", count: 65))]],
                ]), "message.apns.headers"
            ),
            (body(["token": "t", "apns": ["headers": ["apns-priority": "7"]]]), "message.apns.headers"),
            (
                body(["token": "t", "apns": ["headers": ["apns-push-type": "background", "apns-priority": "10"]]]),
                "message.apns.headers"
            ),
            (body(["token": "t", "data": ["big": .string(String(repeating: "x", count: 4100))]]), "message.data"),
            (
                body([
                    "token": "t", "apns": ["payload": ["aps": ["alert": .string(String(repeating: "x", count: 4100))]]],
                ]), "message.apns.payload"
            ),
            (body(["token": "t"], validateOnly: "yes"), "validate_only"),
            // The v1 Message resource: unknown names anywhere, types, enum values.
            (body(["token": "t", "notifcation": ["title": "x"]]), "message"),
            (body(["token": "t", "android": ["priority": "bogus"]]), "message.android.priority"),
            (body(["token": "t", "android": ["prioritty": "high"]]), "message.android"),
            (body(["token": "t", "android": ["ttl": "3600"]]), "message.android.ttl"),
            (body(["token": "t", "android": ["direct_boot_ok": "yes"]]), "message.android.direct_boot_ok"),
            (
                body(["token": "t", "android": ["notification": ["visibility": "HIDDEN"]]]),
                "message.android.notification.visibility"
            ),
            (body(["token": "t", "android": ["notification": ["colour": "#fff"]]]), "message.android.notification"),
            (body(["token": "t", "apns": ["payload": "x"]]), "message.apns.payload"),
            (body(["token": "t", "apns": ["fcm_options": ["link": "x"]]]), "message.apns.fcm_options"),
            (body(["token": "t", "webpush": ["headers": ["Urgency": 1]]]), "message.webpush.headers[0].value"),
            (body(["token": "t", "notification": ["title": 1]]), "message.notification.title"),
            (body(["token": 5]), "message.token"),
        ] as [([UInt8], String)]
    )
    func refusedMessages(body: [UInt8], field: String) {
        #expect {
            _ = try FCMMessageChecker.check(body)
        } throws: { error in
            guard let error = error as? FCMStatusError else { return false }
            return error.status == 400 && error.rpcStatus == "INVALID_ARGUMENT" && error.field == field
        }
    }

    @Test("a message with one target and string data passes; a dry run says so")
    func accepted() throws {
        let checked = try FCMMessageChecker.check(
            Self.body(["token": "t", "data": ["a": "1"], "notification": ["title": "x"]], validateOnly: true))
        #expect(checked.token == "t" && checked.validateOnly)
        #expect(try FCMMessageChecker.check(Self.body(["fid": "installation"])).token == "installation")
    }

    @Test("the v1 resource as the Admin SDKs write it: snake_case or lowerCamelCase names, enums in any case")
    func resourceSpellings() throws {
        let message: JSONValue = [
            "token": "t", "notification": ["title": "x", "body": "y", "image": "https://example.com/i.png"],
            "android": [
                "collapse_key": "agent", "priority": "high", "ttl": "3600s", "restrictedPackageName": "com.example",
                "notification": [
                    "channel_id": "replies", "notificationPriority": "PRIORITY_HIGH", "visibility": "public",
                    "vibrate_timings": ["0.5s", "1s"], "event_time": "2026-11-25T20:00:00Z", "notification_count": 3,
                    "light_settings": [
                        "color": ["red": .number(0.1), "green": .number(0.2), "blue": .number(0.3), "alpha": 1],
                        "light_on_duration": "1.5s",
                        "light_off_duration": "2s",
                    ],
                ],
                "fcmOptions": ["analytics_label": "a"], "direct_boot_ok": false,
            ],
            "apns": [
                "headers": ["apns-priority": "10"], "payload": ["aps": ["badge": 1], "custom": ["any": [1, 2]]],
                "fcm_options": ["image": "https://example.com/i.png"],
            ],
            "webpush": ["headers": ["Urgency": "high"], "notification": ["title": "x", "actions": []]],
            "fcmOptions": ["analyticsLabel": "b"], "data": ["type": "reply_finished"],
        ]
        let root: JSONValue = ["message": message, "validateOnly": true]
        let checked = try FCMMessageChecker.check(Array(try root.encodedData()))
        #expect(checked.token == "t" && checked.validateOnly)
    }

    @Test("a name the request root does not have is refused as Google refuses it")
    func unknownRootName() {
        let root: JSONValue = ["message": ["token": "t"], "validate": true]
        #expect {
            _ = try FCMMessageChecker.check(Array(try root.encodedData()))
        } throws: { error in
            (error as? FCMStatusError)?.message
                == "Invalid JSON payload received. Unknown name \"validate\": Cannot find field."
        }
    }

    static func assertion(
        account: FCMEmulatorAccount = account, email: String = FCMEmulatorAccount.clientEmail,
        audience: String = "https://emulator.test/token", scope: String = FCMAssertion.scope, issuedAt: Date = Date(),
        lifetime: Int = 3600
    ) throws -> String {
        var json = try JSONSerialization.jsonObject(with: account.json(tokenURI: audience)) as! [String: Any]
        json["client_email"] = email
        let serviceAccount = try FCMServiceAccount(
            json: try JSONSerialization.data(withJSONObject: json), source: "test")
        let token = try FCMAssertion.make(for: serviceAccount, issuedAt: issuedAt)
        guard scope != FCMAssertion.scope || lifetime != 3600 else { return token }
        // Re-sign with other claims, as a broken client would.
        let parts = token.split(separator: ".")
        var claims = try JSONSerialization.jsonObject(with: Base64URL.decode(parts[1])!) as! [String: Any]
        claims["scope"] = scope
        claims["exp"] = (claims["iat"] as! Int) + lifetime
        let input = parts[0] + "." + Base64URL.encode(try JSONSerialization.data(withJSONObject: claims))
        let signature = try account.privateKey.signature(for: Data(input.utf8), padding: .insecurePKCS1v1_5)
        return input + "." + Base64URL.encode(signature.rawRepresentation)
    }

    static func form(_ assertion: String, grant: String = FCMTokenIssuer.grantType) -> String {
        "grant_type=\(grant.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)&assertion=\(assertion)"
    }

    @Test("the token endpoint: a good assertion gets a token that authorizes sends; bad ones get Google's errors")
    func tokenEndpoint() throws {
        var configuration = Self.account.emulatorConfiguration()
        configuration.tokenURI = "https://emulator.test/token"
        let issuer = FCMTokenIssuer(configuration: configuration)
        let now = Date()
        let issued = try issuer.issue(form: Self.form(try Self.assertion()), now: now)
        #expect(issued.expiresIn == 3600)
        #expect(issuer.refusal(of: "Bearer \(issued.token)", now: now) == nil)
        // Google names why a credential is refused; clients renew on ACCESS_TOKEN_EXPIRED.
        #expect(
            issuer.refusal(of: "Bearer \(issued.token)", now: now.addingTimeInterval(3601))?.reason
                == "ACCESS_TOKEN_EXPIRED")
        #expect(issuer.refusal(of: nil, now: now)?.reason == "CREDENTIALS_MISSING")
        #expect(issuer.refusal(of: "Basic x", now: now)?.reason == "CREDENTIALS_MISSING")
        let madeUp = issuer.refusal(of: "Bearer made-up", now: now)
        #expect(madeUp?.status == 401 && madeUp?.reason == nil)
        let expired = try #require(issuer.refusal(of: "Bearer \(issued.token)", now: now.addingTimeInterval(3601)))
        let details = expired.json.objectValue?["error"]?.objectValue?["details"]?.arrayValue ?? []
        #expect(
            details.contains {
                $0.objectValue?["@type"] == "type.googleapis.com/google.rpc.ErrorInfo"
                    && $0.objectValue?["reason"] == "ACCESS_TOKEN_EXPIRED"
            })
        // Google's own token URL is accepted as the audience too (the Admin SDK writes it).
        _ = try issuer.issue(form: Self.form(try Self.assertion(audience: FCMTokenIssuer.googleTokenURI)), now: now)

        let refusals: [(String, String)] = [
            (Self.form(try Self.assertion(), grant: "client_credentials"), "unsupported_grant_type"),
            (Self.form("not-a-jwt"), "invalid_grant"),
            (Self.form(try Self.assertion(account: .otherTestAccount)), "invalid_grant"),
            (Self.form(try Self.assertion(email: "someone@else.iam.gserviceaccount.com")), "invalid_grant"),
            (Self.form(try Self.assertion(audience: "https://elsewhere.test/token")), "invalid_grant"),
            (Self.form(try Self.assertion(scope: "https://www.googleapis.com/auth/userinfo.email")), "invalid_scope"),
            (Self.form(try Self.assertion(lifetime: 7200)), "invalid_grant"),
            (Self.form(try Self.assertion(issuedAt: now.addingTimeInterval(-7200))), "invalid_grant"),
        ]
        for (form, expected) in refusals {
            do {
                _ = try issuer.issue(form: form, now: now)
                Issue.record("accepted, expected \(expected)")
            } catch {
                #expect(error.error == expected)
                #expect(error.json.objectValue?["error"] == .string(expected))
            }
        }
    }
}
