import Crypto
import Foundation
import PushgateAPNs
import Testing

@testable import PushgateEmulators

/// The emulator refuses what APNs refuses, with APNs's status and reason.
@Suite("APNs emulator checks")
struct APNsEmulatorCheckTests {
    static let key = P256.Signing.PrivateKey()
    static let now = Date()
    static let token = String(repeating: "ab", count: 32)

    static func jwt(
        keyID: String = "KEY", teamID: String = "TEAM", issuedAt: Date = now, key: P256.Signing.PrivateKey = key
    ) -> String {
        "bearer " + (try! APNsJWT.make(keyID: keyID, teamID: teamID, issuedAt: issuedAt, key: key))
    }

    static let valid: [String: String] = [
        "authorization": jwt(), "apns-topic": "com.example", "apns-push-type": "alert", "apns-priority": "10",
        "apns-expiration": "0", "apns-id": "123e4567-e89b-42d3-a456-426614174000",
        "apns-collapse-id": String(repeating: "c", count: 64),
    ]

    static func changing(_ name: String, to value: String?) -> [String: String] {
        var headers = valid
        headers[name] = value
        return headers
    }

    let checker: APNsRequestChecker = {
        var configuration = APNsEmulatorConfiguration()
        configuration.verifyKey = key.publicKey
        configuration.expectedKeyID = "KEY"
        configuration.expectedTeamID = "TEAM"
        return APNsRequestChecker(configuration: configuration)
    }()

    @Test(
        "each refusal",
        arguments: [
            (valid, token, "{}", 200, nil),
            (changing("authorization", to: nil), token, "{}", 403, "MissingProviderToken"),
            (changing("authorization", to: "bearer not.a.jwt"), token, "{}", 403, "InvalidProviderToken"),
            (
                changing("authorization", to: jwt(key: P256.Signing.PrivateKey())), token, "{}", 403,
                "InvalidProviderToken"
            ),
            (changing("authorization", to: jwt(keyID: "OTHER")), token, "{}", 403, "InvalidProviderToken"),
            (changing("authorization", to: jwt(teamID: "OTHER")), token, "{}", 403, "InvalidProviderToken"),
            (changing("authorization", to: jwt(issuedAt: now - 3700)), token, "{}", 403, "ExpiredProviderToken"),
            (changing("apns-topic", to: nil), token, "{}", 400, "MissingTopic"),
            (valid, "", "{}", 400, "MissingDeviceToken"),
            (valid, "xyz1", "{}", 400, "BadDeviceToken"),
            (valid, "abc", "{}", 400, "BadDeviceToken"),
            (changing("apns-push-type", to: "banner"), token, "{}", 400, "InvalidPushType"),
            (changing("apns-priority", to: "7"), token, "{}", 400, "BadPriority"),
            (changing("apns-push-type", to: "background"), token, "{}", 400, "BadPriority"),
            (changing("apns-expiration", to: "tomorrow"), token, "{}", 400, "BadExpirationDate"),
            (changing("apns-id", to: "not-a-uuid"), token, "{}", 400, "BadMessageId"),
            (changing("apns-collapse-id", to: String(repeating: "c", count: 65)), token, "{}", 400, "BadCollapseId"),
            (valid, token, "", 400, "PayloadEmpty"),
            (valid, token, "{\"a\": \"" + String(repeating: "x", count: 4090) + "\"}", 413, "PayloadTooLarge"),
            (valid, token, "{not json", 400, "BadPayload"),
        ] as [([String: String], String, String, Int, String?)]
    )
    func refusal(headers: [String: String], token: String, payload: String, status: Int, reason: String?) {
        let verdict = checker.check(token: token, headers: headers, payload: Array(payload.utf8), now: Self.now)
        #expect(verdict == .init(status: status, reason: reason))
    }
}
