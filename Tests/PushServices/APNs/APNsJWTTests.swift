import Crypto
import Foundation
import PushgateAPNs
import PushgateCore
import PushgateSealing
import PushgateTesting
import Testing

@Suite("Provider token (ES256 JWT)")
struct APNsJWTTests {
    let key = P256.Signing.PrivateKey()

    @Test("header alg+kid, claims iss+iat as an integer, raw r‖s signature that verifies")
    func shape() throws {
        let token = try APNsJWT.make(
            keyID: "ABC123DEFG",
            teamID: "TEAM456789",
            issuedAt: Date(timeIntervalSince1970: 1_795_323_872.9),
            key: key
        )
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        try #require(parts.count == 3)
        #expect(!token.contains("=") && !token.contains("+") && !token.contains("/"), "base64url without padding")
        let header =
            try JSONSerialization.jsonObject(with: try #require(Base64URL.decode(parts[0]))) as? [String: Any]
        #expect(header?.count == 2)
        #expect(header?["alg"] as? String == "ES256")
        #expect(header?["kid"] as? String == "ABC123DEFG")
        let claimsText = String(decoding: try #require(Base64URL.decode(parts[1])), as: UTF8.self)
        #expect(claimsText == #"{"iat":1795323872,"iss":"TEAM456789"}"#)
        let signature = try #require(Base64URL.decode(parts[2]))
        #expect(signature.count == 64)
        let valid = key.publicKey.isValidSignature(
            try P256.Signing.ECDSASignature(rawRepresentation: signature),
            for: Data("\(parts[0]).\(parts[1])".utf8)
        )
        #expect(valid)
        let otherKey = P256.Signing.PrivateKey().publicKey
        #expect(
            !otherKey.isValidSignature(
                try P256.Signing.ECDSASignature(rawRepresentation: signature), for: Data("\(parts[0]).\(parts[1])".utf8)
            ))
    }

    @Test("one token is shared until 50 minutes, then renewed")
    func renewal() throws {
        let clock = TestClock()
        let manager = APNsTokenManager(keyID: "K", teamID: "T", key: key, now: clock.now)
        let first = try manager.token()
        clock.advance(by: 49 * 60 + 59)
        #expect(try manager.token() == first)
        clock.advance(by: 1)
        let second = try manager.token()
        #expect(second != first)
        #expect(second.issuedAt == clock.now())
        #expect(manager.tokensMade == 2)
    }

    @Test("after ExpiredProviderToken, renewed only when the token is 20 minutes old")
    func renewalFloor() throws {
        let clock = TestClock()
        let manager = APNsTokenManager(keyID: "K", teamID: "T", key: key, now: clock.now)
        let first = try manager.token()
        clock.advance(by: 19 * 60)
        #expect(try manager.renew(afterRejecting: first) == nil, "not before 20 minutes")
        #expect(try manager.token() == first)
        clock.advance(by: 60)
        let renewed = try #require(try manager.renew(afterRejecting: first))
        #expect(renewed != first)
        // Another connection rejected with the old token: it gets the new one, no new signing.
        #expect(try manager.renew(afterRejecting: first) == renewed)
        #expect(manager.tokensMade == 2)
    }
}
