import Crypto
import Foundation
import NIOConcurrencyHelpers
import PushgateCore

/// The checks APNs makes on a request, as a function from the request (and what its
/// connection authenticated with before) to the status and reason APNs would answer.
/// The order is the emulator's: Apple does not document which check comes first.
final class APNsRequestChecker: Sendable {
    let configuration: APNsEmulatorConfiguration
    /// The last token whose signature verified, with its key, team and `iat`: every
    /// push of a connection carries the same token, and verifying ES256 each time would
    /// make the emulator, not the gateway, what tests wait for.
    private let verified = NIOLockedValueBox<VerifiedToken?>(nil)

    private struct VerifiedToken {
        let token: Substring
        let keyID: String
        let teamID: String
        let issuedAt: Double
    }

    init(configuration: APNsEmulatorConfiguration) {
        self.configuration = configuration
    }

    struct Verdict: Equatable, Sendable {
        let status: Int
        let reason: String?

        static let accepted = Verdict(status: 200, reason: nil)

        static func badRequest(_ reason: String) -> Verdict { Verdict(status: 400, reason: reason) }
    }

    /// Each push type, and the suffix its topic must carry after the bundle id.
    static let topicSuffixes: [String: String] = [
        "alert": "", "background": "", "location": ".location-query", "voip": ".voip",
        "complication": ".complication", "fileprovider": ".pushkit.fileprovider", "mdm": "",
        "liveactivity": ".push-type.liveactivity", "pushtotalk": ".voip-ptt", "widgets": ".push-type.widgets",
    ]

    /// The largest payload of a push type: 5,120 bytes for VoIP, 4,096 for the others.
    static func maxPayloadBytes(pushType: String?) -> Int { pushType == "voip" ? 5120 : 4096 }

    /// The device token a path names: `/3/device/<token>` (empty when missing), or
    /// `nil` when the path is not one APNs serves.
    static func deviceToken(inPath path: String) -> Substring? {
        let prefix = "/3/device"
        guard path.hasPrefix(prefix) else { return nil }
        let rest = path.dropFirst(prefix.count)
        if rest.isEmpty { return "" }
        guard rest.first == "/" else { return nil }  // /3/devices/…
        let token = rest.dropFirst()
        return token.contains("/") ? nil : token
    }

    /// - Parameters:
    ///   - connection: what the request's connection pushed with before.
    func check(_ request: EmulatorRequest, connection: APNsConnectionAuth, now: Date) -> Verdict {
        guard let token = Self.deviceToken(inPath: request.path) else { return Verdict(status: 404, reason: "BadPath") }
        guard request.method == "POST" else { return Verdict(status: 405, reason: "MethodNotAllowed") }
        var names = Set<String>()
        for (name, _) in request.headers where !names.insert(name).inserted {
            return .badRequest("DuplicateHeaders")
        }
        guard let authorization = request.header("authorization") else {
            return Verdict(status: 403, reason: "MissingProviderToken")
        }
        if let verdict = checkProviderToken(authorization, connection: connection, now: now) { return verdict }
        let pushType = request.header("apns-push-type")
        if let verdict = checkTopic(request.header("apns-topic"), pushType: pushType) { return verdict }
        guard !token.isEmpty else { return .badRequest("MissingDeviceToken") }
        // Hex of 32 to 100 bytes: the lengths Apple issues (push-protocols.md, section 4).
        guard (64...200).contains(token.utf8.count), token.utf8.count.isMultiple(of: 2),
            token.utf8.allSatisfy(\.isHexDigit), configuration.acceptedTokenPrefix.map(token.hasPrefix) ?? true
        else {
            return .badRequest("BadDeviceToken")
        }
        if let pushType, Self.topicSuffixes[pushType] == nil { return .badRequest("InvalidPushType") }
        if let verdict = checkHeaders(request, pushType: pushType) { return verdict }
        guard !request.body.isEmpty else { return .badRequest("PayloadEmpty") }
        guard !request.bodyTruncated, request.body.count <= Self.maxPayloadBytes(pushType: pushType) else {
            return Verdict(status: 413, reason: "PayloadTooLarge")
        }
        // Not an APNs reason: APNs's own parser answers in ways it does not document.
        guard case .object(let payload)? = try? JSONValue.parse(request.body) else { return .badRequest("BadPayload") }
        if pushType == "liveactivity" {
            if request.header("apns-priority") == "1" { return .badRequest("BadPriority") }
            if let verdict = Self.checkLiveActivity(payload) { return verdict }
        }
        return .accepted
    }

    /// What ActivityKit needs of a `liveactivity` payload (`reference/webpush-and-live-
    /// activities.md`): `aps.timestamp` (seconds), a known `event`, a `content-state`
    /// object, and on a start `attributes-type`, `attributes` and an `alert`; dates as
    /// numbers. Apple documents no reasons for these: the emulator answers 400 with
    /// reasons of its own, `BadLiveActivity…`.
    static func checkLiveActivity(_ payload: [String: JSONValue]) -> Verdict? {
        guard case .object(let aps)? = payload["aps"] else { return .badRequest("BadLiveActivityPayload") }
        guard case .number? = aps["timestamp"] else { return .badRequest("BadLiveActivityTimestamp") }
        guard let event = aps["event"]?.stringValue, ["start", "update", "end"].contains(event) else {
            return .badRequest("BadLiveActivityEvent")
        }
        guard case .object? = aps["content-state"] else { return .badRequest("BadLiveActivityContentState") }
        for key in ["stale-date", "dismissal-date", "relevance-score"] {
            switch aps[key] {
            case nil, .number?: continue
            default: return .badRequest("BadLiveActivityDate")
            }
        }
        if event == "start" {
            guard aps["attributes-type"]?.stringValue?.isEmpty == false, case .object? = aps["attributes"] else {
                return .badRequest("BadLiveActivityAttributes")
            }
            guard case .object? = aps["alert"] else { return .badRequest("BadLiveActivityAlert") }
        }
        return nil
    }

    /// `apns-topic`: present, a bundle id's characters, the push type's suffix, and
    /// (when the emulator knows the team's apps) one of them with that suffix.
    private func checkTopic(_ topic: String?, pushType: String?) -> Verdict? {
        guard let topic, !topic.isEmpty else { return .badRequest("MissingTopic") }
        let segments = topic.split(separator: ".", omittingEmptySubsequences: false)
        guard
            segments.allSatisfy({ segment in
                !segment.isEmpty && segment.utf8.allSatisfy { $0.isHexDigit || $0.isBundleIDCharacter }
            })
        else { return .badRequest("BadTopic") }
        // A push type whose topic carries a suffix (a Live Activity's
        // `.push-type.liveactivity`) is never right on a topic without it, whatever
        // apps the team has (issue 72).
        let suffix = Self.topicSuffixes[pushType ?? "alert"] ?? ""
        guard topic.hasSuffix(suffix), topic.count > suffix.count else { return .badRequest("TopicDisallowed") }
        guard !configuration.allowedTopics.isEmpty else { return nil }
        guard configuration.allowedTopics.contains(String(topic.dropLast(suffix.count))) else {
            return .badRequest("TopicDisallowed")
        }
        return nil
    }

    /// The optional headers' values.
    private func checkHeaders(_ request: EmulatorRequest, pushType: String?) -> Verdict? {
        let priority = request.header("apns-priority")
        if let priority, !["1", "5", "10"].contains(priority) { return .badRequest("BadPriority") }
        // A background push at priority 10 (the default) is an error (push-protocols.md).
        if pushType == "background", (priority ?? "10") == "10" { return .badRequest("BadPriority") }
        if let expiration = request.header("apns-expiration"), Int64(expiration).map({ $0 >= 0 }) != true {
            return .badRequest("BadExpirationDate")
        }
        if let id = request.header("apns-id"), UUID(uuidString: id) == nil { return .badRequest("BadMessageId") }
        if let collapseID = request.header("apns-collapse-id"), collapseID.utf8.count > 64 {
            return .badRequest("BadCollapseId")
        }
        return nil
    }

    /// The JWT checks, when the emulator knows the provider's key.
    private func checkProviderToken(_ authorization: String, connection: APNsConnectionAuth, now: Date) -> Verdict? {
        guard let verifyKey = configuration.verifyKey else { return nil }
        let invalid = Verdict(status: 403, reason: "InvalidProviderToken")
        let parts = authorization.split(separator: " ")
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return invalid }
        let token: VerifiedToken
        if let known = verified.withLockedValue({ $0 }), known.token == parts[1] {
            token = known
        } else {
            guard let jwt = JWTParts(parts[1]), jwt.header["alg"] == "ES256",
                case .string(let keyID)? = jwt.header["kid"], case .string(let teamID)? = jwt.claims["iss"]
            else { return invalid }
            // Another provider's key when the token names one, else the emulator's own.
            let other = configuration.otherKeys.first { $0.keyID == keyID }
            guard let signature = try? P256.Signing.ECDSASignature(rawRepresentation: jwt.signature),
                (other?.publicKey ?? verifyKey).isValidSignature(signature, for: jwt.signingInput)
            else { return invalid }
            if let other {
                if teamID != other.teamID { return invalid }
            } else {
                if let expected = configuration.expectedKeyID, keyID != expected { return invalid }
                if let expected = configuration.expectedTeamID, teamID != expected { return invalid }
            }
            guard let issuedAt = jwt.looseSeconds("iat") else { return invalid }
            token = VerifiedToken(token: parts[1], keyID: keyID, teamID: teamID, issuedAt: issuedAt)
            verified.withLockedValue { $0 = token }
        }
        if let verdict = age(of: token.issuedAt, now: now) { return verdict }
        return connection.check(keyID: token.keyID, teamID: token.teamID, issuedAt: token.issuedAt)
    }

    /// APNs refuses a token issued more than an hour ago (or in the future).
    private func age(of issuedAt: Double, now: Date) -> Verdict? {
        let age = now.timeIntervalSince1970 - issuedAt
        if age > 3600 { return Verdict(status: 403, reason: "ExpiredProviderToken") }
        if let cutoff = configuration.expireTokensIssuedBefore, issuedAt < cutoff.timeIntervalSince1970 {
            return Verdict(status: 403, reason: "ExpiredProviderToken")
        }
        if age < -60 { return Verdict(status: 403, reason: "InvalidProviderToken") }  // beyond clock skew
        return nil
    }
}

extension UInt8 {
    fileprivate var isHexDigit: Bool {
        (0x30...0x39).contains(self) || (0x41...0x46).contains(self) || (0x61...0x66).contains(self)
    }

    /// A bundle id's other characters: letters and `-` (digits are hex digits).
    fileprivate var isBundleIDCharacter: Bool {
        (0x41...0x5A).contains(self) || (0x61...0x7A).contains(self) || self == UInt8(ascii: "-")
    }
}
