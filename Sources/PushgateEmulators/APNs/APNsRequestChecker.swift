import Crypto
import Foundation
import PushgateCore
import Synchronization

/// The checks APNs makes on a push, in the order it makes them, as a function
/// from the request to the status and reason APNs would answer.
final class APNsRequestChecker: Sendable {
    let configuration: APNsEmulatorConfiguration
    /// The last token whose signature verified, and its `iat`: every push of a
    /// connection carries the same token, and verifying ES256 each time would make
    /// the emulator, not the gateway, what tests wait for.
    private let verified = Mutex<(token: Substring, issuedAt: Double)?>(nil)

    init(configuration: APNsEmulatorConfiguration) {
        self.configuration = configuration
    }

    struct Verdict: Equatable {
        let status: Int
        let reason: String?

        static let accepted = Verdict(status: 200, reason: nil)
    }

    private static let pushTypes: Set = [
        "alert", "background", "location", "voip", "complication", "fileprovider", "mdm", "liveactivity",
        "pushtotalk", "widgets",
    ]

    /// - Parameters:
    ///   - token: the `<token>` of `/3/device/<token>`.
    ///   - headers: lower-case names.
    func check(token: String, headers: [String: String], payload: [UInt8], now: Date) -> Verdict {
        guard let authorization = headers["authorization"] else {
            return Verdict(status: 403, reason: "MissingProviderToken")
        }
        if let verdict = checkProviderToken(authorization, now: now) { return verdict }
        guard let topic = headers["apns-topic"], !topic.isEmpty else {
            return Verdict(status: 400, reason: "MissingTopic")
        }
        guard !token.isEmpty else { return Verdict(status: 400, reason: "MissingDeviceToken") }
        guard token.count.isMultiple(of: 2), token.utf8.allSatisfy(\.isHexDigit),
            configuration.acceptedTokenPrefix.map(token.hasPrefix) ?? true
        else {
            return Verdict(status: 400, reason: "BadDeviceToken")
        }
        if let type = headers["apns-push-type"], !Self.pushTypes.contains(type) {
            return Verdict(status: 400, reason: "InvalidPushType")
        }
        if let priority = headers["apns-priority"], !["1", "5", "10"].contains(priority) {
            return Verdict(status: 400, reason: "BadPriority")
        }
        // A background push at priority 10 (the default) is an error (push-protocols.md).
        if headers["apns-push-type"] == "background", (headers["apns-priority"] ?? "10") == "10" {
            return Verdict(status: 400, reason: "BadPriority")
        }
        if let expiration = headers["apns-expiration"], Int64(expiration) == nil {
            return Verdict(status: 400, reason: "BadExpirationDate")
        }
        if let id = headers["apns-id"], UUID(uuidString: id) == nil {
            return Verdict(status: 400, reason: "BadMessageId")
        }
        if let collapseID = headers["apns-collapse-id"], collapseID.utf8.count > 64 {
            return Verdict(status: 400, reason: "BadCollapseId")
        }
        guard !payload.isEmpty else { return Verdict(status: 400, reason: "PayloadEmpty") }
        guard payload.count <= 4096 else { return Verdict(status: 413, reason: "PayloadTooLarge") }
        // Not an APNs reason: APNs's own parser answers in ways it does not document.
        guard case .object? = try? JSONValue.parse(payload) else { return Verdict(status: 400, reason: "BadPayload") }
        return .accepted
    }

    /// The JWT checks, when the emulator knows the provider's key.
    private func checkProviderToken(_ authorization: String, now: Date) -> Verdict? {
        guard let verifyKey = configuration.verifyKey else { return nil }
        let invalid = Verdict(status: 403, reason: "InvalidProviderToken")
        let parts = authorization.split(separator: " ")
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return invalid }
        if let known = verified.withLock({ $0 }), known.token == parts[1] {
            return age(of: known.issuedAt, now: now)
        }
        guard let jwt = JWTParts(parts[1]), jwt.header["alg"] == "ES256" else { return invalid }
        // Another provider's key when the token names one, else the emulator's own.
        let other = configuration.otherKeys.first { jwt.header["kid"] == .string($0.keyID) }
        guard let signature = try? P256.Signing.ECDSASignature(rawRepresentation: jwt.signature),
            (other?.publicKey ?? verifyKey).isValidSignature(signature, for: jwt.signingInput)
        else { return invalid }
        if let other {
            if jwt.claims["iss"] != .string(other.teamID) { return invalid }
        } else {
            if let expected = configuration.expectedKeyID, jwt.header["kid"] != .string(expected) { return invalid }
            if let expected = configuration.expectedTeamID, jwt.claims["iss"] != .string(expected) { return invalid }
        }
        guard let issuedAt = jwt.seconds("iat") else { return invalid }
        verified.withLock { $0 = (parts[1], issuedAt) }
        return age(of: issuedAt, now: now)
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
}
