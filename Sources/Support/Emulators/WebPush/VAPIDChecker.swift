import Crypto
import Foundation
import PushgateCore
import PushgateSealing

/// What a push service checks of a push's `Authorization` (RFC 8292): `vapid t=<JWT>,
/// k=<public key>`, the JWT ES256-signed by that key, `aud` the endpoint's origin,
/// `exp` in the future and no more than 24 hours ahead, `sub` a `mailto:` or `https:`
/// contact; and, for a subscription made for an application server key, that key.
enum VAPIDChecker {
    /// A refusal: the status and the reason the inbox records.
    struct Refusal: Error, Equatable {
        let status: Int
        let reason: String
    }

    static func check(
        _ authorization: String?, origin: String, boundKey: String?, now: Date
    ) throws(Refusal) {
        guard let authorization, let parameters = Self.parameters(authorization) else {
            throw Refusal(status: 401, reason: "vapid_missing")
        }
        guard let token = parameters["t"], let key = parameters["k"] else {
            throw Refusal(status: 401, reason: "vapid_malformed")
        }
        guard let point = Base64URL.decode(key), let publicKey = try? P256.Signing.PublicKey(x963Representation: point)
        else { throw Refusal(status: 401, reason: "vapid_key") }
        guard let jwt = JWTParts(token), jwt.header["alg"] == "ES256",
            let signature = try? P256.Signing.ECDSASignature(rawRepresentation: jwt.signature),
            publicKey.isValidSignature(signature, for: jwt.signingInput)
        else { throw Refusal(status: 401, reason: "vapid_signature") }
        guard jwt.claims["aud"]?.stringValue == origin else { throw Refusal(status: 401, reason: "vapid_audience") }
        guard let expires = jwt.seconds("exp") else { throw Refusal(status: 401, reason: "vapid_exp_missing") }
        let left = expires - now.timeIntervalSince1970
        guard left > 0 else { throw Refusal(status: 401, reason: "vapid_expired") }
        // A minute's grace for clocks a little apart.
        guard left <= 86_400 + 60 else { throw Refusal(status: 401, reason: "vapid_exp_too_far") }
        guard let subject = jwt.claims["sub"]?.stringValue, subject.hasPrefix("mailto:") || subject.hasPrefix("https:")
        else { throw Refusal(status: 401, reason: "vapid_sub") }
        if let boundKey, Base64URL.decode(boundKey) != point {
            // Made with another application server key: not this sender's to push to.
            throw Refusal(status: 403, reason: "vapid_key_mismatch")
        }
    }

    /// `vapid t=…, k=…` as a dictionary; `nil` for another scheme.
    static func parameters(_ header: String) -> [String: String]? {
        let trimmed = header.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("vapid ") else { return nil }
        var parameters: [String: String] = [:]
        for part in trimmed.dropFirst(6).split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { continue }
            parameters[pair[0].trimmingCharacters(in: .whitespaces).lowercased()] =
                pair[1].trimmingCharacters(in: .whitespaces)
        }
        return parameters
    }
}
