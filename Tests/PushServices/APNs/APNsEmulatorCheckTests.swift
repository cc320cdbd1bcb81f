import Crypto
import Foundation
import PushgateAPNs
import PushgateCore
import PushgateSealing
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

    /// VoIP's headers: its push type, and its topic's suffix.
    static let voip = changing("apns-push-type", to: "voip").merging(["apns-topic": "com.example.voip"]) { $1 }

    static func checker(allowedTopics: Set<String> = []) -> APNsRequestChecker {
        var configuration = APNsEmulatorConfiguration()
        configuration.verifyKey = key.publicKey
        configuration.expectedKeyID = "KEY"
        configuration.expectedTeamID = "TEAM"
        configuration.otherKeys = [.init(keyID: "OTHERKEY", teamID: "OTHERTEAM", publicKey: otherKey.publicKey)]
        configuration.allowedTopics = allowedTopics
        return APNsRequestChecker(configuration: configuration)
    }

    static let otherKey = P256.Signing.PrivateKey()

    static func request(
        _ headers: [String: String], token: String = token, payload: String = "{}", method: String = "POST",
        path: String? = nil
    ) -> EmulatorRequest {
        var request = EmulatorRequest(
            method: method, path: path ?? "/3/device/\(token)", authority: nil,
            headers: headers.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
        request.append(Array(payload.utf8), upTo: APNsEmulator.maxCollectedBodyBytes)
        return request
    }

    static func payload(bytes: Int) -> String {
        let frame = "{\"aps\":{},\"a\":\"\"}"
        return "{\"aps\":{},\"a\":\"" + String(repeating: "x", count: bytes - frame.utf8.count) + "\"}"
    }

    @Test(
        "each refusal",
        arguments: [
            (request(valid), 200, nil),
            (request(valid, path: "/3/devices/" + token), 404, "BadPath"),
            (request(valid, path: "/2/device/" + token), 404, "BadPath"),
            (request(valid, path: "/3/device/" + token + "/x"), 404, "BadPath"),
            (request(valid, method: "GET"), 405, "MethodNotAllowed"),
            (request(valid, method: "PUT"), 405, "MethodNotAllowed"),
            (request(changing("authorization", to: nil)), 403, "MissingProviderToken"),
            (request(changing("authorization", to: "bearer not.a.jwt")), 403, "InvalidProviderToken"),
            (request(changing("authorization", to: jwt(key: P256.Signing.PrivateKey()))), 403, "InvalidProviderToken"),
            (request(changing("authorization", to: jwt(keyID: "OTHER"))), 403, "InvalidProviderToken"),
            (request(changing("authorization", to: jwt(teamID: "OTHER"))), 403, "InvalidProviderToken"),
            (request(changing("authorization", to: jwt(issuedAt: now - 3700))), 403, "ExpiredProviderToken"),
            (request(changing("apns-topic", to: nil)), 400, "MissingTopic"),
            (request(changing("apns-topic", to: "com..example")), 400, "BadTopic"),
            (request(changing("apns-topic", to: "com.example app")), 400, "BadTopic"),
            (request(valid, path: "/3/device/"), 400, "MissingDeviceToken"),
            (request(valid, path: "/3/device"), 400, "MissingDeviceToken"),
            (request(valid, token: "xyz1"), 400, "BadDeviceToken"),
            (request(valid, token: "abc"), 400, "BadDeviceToken"),
            (request(valid, token: "abcd"), 400, "BadDeviceToken"),
            (request(valid, token: String(repeating: "ab", count: 101)), 400, "BadDeviceToken"),
            (request(valid, token: String(repeating: "AB", count: 100)), 200, nil),
            (request(changing("apns-push-type", to: "banner")), 400, "InvalidPushType"),
            (request(changing("apns-priority", to: "7")), 400, "BadPriority"),
            (request(changing("apns-push-type", to: "background")), 400, "BadPriority"),
            (request(changing("apns-expiration", to: "tomorrow")), 400, "BadExpirationDate"),
            (request(changing("apns-expiration", to: "-1")), 400, "BadExpirationDate"),
            (request(changing("apns-id", to: "not-a-uuid")), 400, "BadMessageId"),
            (request(changing("apns-collapse-id", to: String(repeating: "c", count: 65))), 400, "BadCollapseId"),
            (request(valid, payload: ""), 400, "PayloadEmpty"),
            (request(valid, payload: payload(bytes: 4096)), 200, nil),
            (request(valid, payload: payload(bytes: 4097)), 413, "PayloadTooLarge"),
            (request(voip, payload: payload(bytes: 4608)), 200, nil),
            (request(voip, payload: payload(bytes: 5120)), 200, nil),
            (request(voip, payload: payload(bytes: 5121)), 413, "PayloadTooLarge"),
            (request(valid, payload: payload(bytes: 100_000)), 413, "PayloadTooLarge"),
            (request(valid, payload: "{not json"), 400, "BadPayload"),
        ] as [(EmulatorRequest, Int, String?)]
    )
    func refusal(request: EmulatorRequest, status: Int, reason: String?) {
        let verdict = Self.checker().check(request, connection: APNsConnectionAuth(), now: Self.now)
        #expect(verdict == .init(status: status, reason: reason))
    }

    @Test("a header sent twice is DuplicateHeaders")
    func duplicateHeaders() {
        var request = Self.request(Self.valid)
        request.headers.append(("apns-topic", "com.example"))
        let verdict = Self.checker().check(request, connection: APNsConnectionAuth(), now: Self.now)
        #expect(verdict == .init(status: 400, reason: "DuplicateHeaders"))
    }

    @Test("iat as APNs takes it: a fraction (PyJWT's time.time()) or a quoted number (APNSwift)")
    func looseIssuedAt() throws {
        for claims in [
            #"{"iss":"TEAM","iat":\#(Self.now.timeIntervalSince1970)}"#,
            #"{"iss":"TEAM","iat":"\#(Int(Self.now.timeIntervalSince1970))"}"#,
        ] {
            let header = Base64URL.encode(Data(#"{"alg":"ES256","kid":"KEY"}"#.utf8))
            let body = Base64URL.encode(Data(claims.utf8))
            let signature = try Self.key.signature(for: Data("\(header).\(body)".utf8)).rawRepresentation
            let request = Self.request(
                Self.changing("authorization", to: "bearer \(header).\(body).\(Base64URL.encode(signature))"))
            #expect(
                Self.checker().check(request, connection: APNsConnectionAuth(), now: Self.now) == .accepted, "\(claims)"
            )
        }
    }

    @Test("with the team's apps known: another topic, or one without its push type's suffix, is TopicDisallowed")
    func topics() {
        let checker = Self.checker(allowedTopics: ["com.example"])
        let cases: [(String, String, String?)] = [
            ("com.example", "alert", nil), ("com.other", "alert", "TopicDisallowed"),
            ("com.example.voip", "voip", nil), ("com.example", "voip", "TopicDisallowed"),
            ("com.example.push-type.liveactivity", "liveactivity", nil),
        ]
        for (topic, pushType, reason) in cases {
            var headers = Self.changing("apns-topic", to: topic)
            headers["apns-push-type"] = pushType
            let payload = pushType == "liveactivity" ? Self.liveActivity : "{}"
            let verdict = checker.check(
                Self.request(headers, payload: payload), connection: APNsConnectionAuth(), now: Self.now)
            #expect(verdict == (reason.map { .init(status: 400, reason: $0) } ?? .accepted), "\(topic) \(pushType)")
        }
    }

    @Test(
        "without the team's apps known too: a push type's topic without its suffix (a liveactivity push to the app's own topic) is TopicDisallowed"
    )
    func topicSuffixAlways() {
        let checker = Self.checker()
        let cases: [(String, String, String?)] = [
            ("com.example", "liveactivity", "TopicDisallowed"), (".push-type.liveactivity", "liveactivity", "BadTopic"),
            ("com.example.push-type.liveactivity", "liveactivity", nil), ("com.example", "voip", "TopicDisallowed"),
            ("com.anything", "alert", nil),
        ]
        for (topic, pushType, reason) in cases {
            var headers = Self.changing("apns-topic", to: topic)
            headers["apns-push-type"] = pushType
            let payload = pushType == "liveactivity" ? Self.liveActivity : "{}"
            let verdict = checker.check(
                Self.request(headers, payload: payload), connection: APNsConnectionAuth(), now: Self.now)
            #expect(verdict == (reason.map { .init(status: 400, reason: $0) } ?? .accepted), "\(topic) \(pushType)")
        }
    }

    static let liveActivity =
        #"{"aps":{"timestamp":1795323872,"event":"update","content-state":{"phase":"running"},"stale-date":1795324772}}"#

    @Test(
        "liveactivity: a timestamp, a known event, a content state, dates as numbers; a start's attributes and alert; not priority 1"
    )
    func liveActivityPayloads() {
        let checker = Self.checker(allowedTopics: ["com.example"])
        var headers = Self.changing("apns-topic", to: "com.example.push-type.liveactivity")
        headers["apns-push-type"] = "liveactivity"
        headers["apns-priority"] = "5"
        headers["apns-collapse-id"] = nil
        let start =
            #"{"aps":{"timestamp":1,"event":"start","content-state":{},"attributes-type":"AgentRunAttributes","attributes":{"agentName":"a"},"alert":{"title":"t","body":"b"}}}"#
        let cases: [(String, String?)] = [
            (Self.liveActivity, nil), (start, nil),
            (#"{"aps":{"timestamp":1,"event":"end","content-state":{},"dismissal-date":2}}"#, nil),
            (#"{"timestamp":1}"#, "BadLiveActivityPayload"),
            (#"{"aps":{"event":"update","content-state":{}}}"#, "BadLiveActivityTimestamp"),
            (#"{"aps":{"timestamp":"1","event":"update","content-state":{}}}"#, "BadLiveActivityTimestamp"),
            (#"{"aps":{"timestamp":1,"event":"pause","content-state":{}}}"#, "BadLiveActivityEvent"),
            (#"{"aps":{"timestamp":1,"event":"update"}}"#, "BadLiveActivityContentState"),
            (
                #"{"aps":{"timestamp":1,"event":"end","content-state":{},"dismissal-date":"soon"}}"#,
                "BadLiveActivityDate"
            ),
            (
                start.replacingOccurrences(of: #""attributes-type":"AgentRunAttributes","#, with: ""),
                "BadLiveActivityAttributes"
            ),
            (start.replacingOccurrences(of: #","alert":{"title":"t","body":"b"}"#, with: ""), "BadLiveActivityAlert"),
        ]
        for (payload, reason) in cases {
            let verdict = checker.check(
                Self.request(headers, payload: payload), connection: APNsConnectionAuth(), now: Self.now)
            #expect(verdict == (reason.map { .init(status: 400, reason: $0) } ?? .accepted), "\(payload)")
        }
        headers["apns-priority"] = "1"
        #expect(
            checker.check(
                Self.request(headers, payload: Self.liveActivity), connection: APNsConnectionAuth(), now: Self.now)
                == .badRequest("BadPriority"))
    }

    @Test(
        "on one connection: a token renewed within 20 minutes is TooManyProviderTokenUpdates, another team's key UnrelatedKeyIdInToken"
    )
    func connectionTokens() {
        let checker = Self.checker()
        let connection = APNsConnectionAuth()
        func push(_ authorization: String) -> APNsRequestChecker.Verdict {
            checker.check(
                Self.request(Self.changing("authorization", to: authorization)), connection: connection, now: Self.now)
        }
        #expect(push(Self.jwt(issuedAt: Self.now - 1800)) == .accepted)
        #expect(push(Self.jwt(issuedAt: Self.now - 1000)) == .init(status: 429, reason: "TooManyProviderTokenUpdates"))
        #expect(push(Self.jwt(issuedAt: Self.now - 1800)) == .accepted, "the first token still works")
        #expect(push(Self.jwt(issuedAt: Self.now - 500)) == .accepted, "21 minutes on: renewed")
        #expect(push(Self.jwt(issuedAt: Self.now - 1800)) == .accepted, "a push signed before the renewal")
        let otherTeam =
            "bearer "
            + (try! APNsJWT.make(keyID: "OTHERKEY", teamID: "OTHERTEAM", issuedAt: Self.now, key: Self.otherKey))
        #expect(push(otherTeam) == .init(status: 403, reason: "UnrelatedKeyIdInToken"))
        #expect(
            checker.check(
                Self.request(Self.changing("authorization", to: otherTeam)), connection: APNsConnectionAuth(),
                now: Self.now)
                == .accepted, "on a connection of its own")
    }
}
