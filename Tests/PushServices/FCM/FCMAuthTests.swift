import Foundation
import NIOConcurrencyHelpers
import PushgateCore
import PushgateEmulators
import PushgateFCM
import PushgateSealing
import PushgateTesting
import Synchronization
import Testing
import _CryptoExtras

/// The service account's assertion and the access tokens traded for it.
@Suite("FCM OAuth2")
struct FCMAuthTests {
    static let emulatorAccount = FCMEmulatorAccount.testAccount
    static let account = try! FCMServiceAccount(
        json: emulatorAccount.json(tokenURI: "https://oauth2.googleapis.com/token"), source: "test")

    @Test(
        "an access token's expires_in is read as 1 s to a day; anything else, a huge or odd one included, as Google's hour"
    )
    func tokenLifetime() {
        #expect(FCMTokenEndpoint.lifetime(NSNumber(value: 3599)) == 3599)
        #expect(FCMTokenEndpoint.lifetime(NSNumber(value: 86_400.5)) == 3600)
        for odd: Any? in [
            nil, "3599", NSNumber(value: 1e300), NSNumber(value: -5), NSNumber(value: Double.nan), NSNumber(value: 0),
        ] {
            #expect(FCMTokenEndpoint.lifetime(odd) == 3600, "\(String(describing: odd))")
        }
    }

    @Test("the assertion: RS256 with kid, iss/scope/aud/iat/exp, a signature the account's public key verifies")
    func assertion() throws {
        let issuedAt = Date(timeIntervalSince1970: 1_795_323_872)
        let token = try FCMAssertion.make(for: Self.account, issuedAt: issuedAt)
        let parts = token.split(separator: ".")
        #expect(parts.count == 3)
        let header = try JSONValue.parse(Array(try #require(Base64URL.decode(parts[0]))))
        let claims = try JSONValue.parse(Array(try #require(Base64URL.decode(parts[1]))))
        #expect(header == ["alg": "RS256", "kid": .string(Self.emulatorAccount.privateKeyID), "typ": "JWT"])
        #expect(
            claims == [
                "iss": .string(FCMEmulatorAccount.clientEmail),
                "scope": "https://www.googleapis.com/auth/firebase.messaging",
                "aud": "https://oauth2.googleapis.com/token", "iat": 1_795_323_872, "exp": 1_795_327_472,
            ])
        let signature = _RSA.Signing.RSASignature(rawRepresentation: try #require(Base64URL.decode(parts[2])))
        #expect(
            Self.emulatorAccount.privateKey.publicKey.isValidSignature(
                signature, for: Data("\(parts[0]).\(parts[1])".utf8), padding: .insecurePKCS1v1_5))
    }

    /// A token endpoint that counts its calls and answers from a script.
    final class Endpoint: Sendable {
        let calls = Atomic<Int>(0)
        let answer: @Sendable (Int) throws(FCMTokenError) -> (String, Int)

        init(answer: @escaping @Sendable (Int) throws(FCMTokenError) -> (String, Int)) {
            self.answer = answer
        }

        func exchange(_ assertion: String) async throws(FCMTokenError) -> (String, Int) {
            let call = calls.add(1, ordering: .relaxed).newValue
            try? await Task.sleep(for: .milliseconds(50))  // long enough for callers to pile up
            return try answer(call)
        }
    }

    @Test("fifty sends asking at once share one fetch")
    func oneFetchInFlight() async throws {
        let endpoint = Endpoint { call in ("token-\(call)", 3600) }
        let tokens = FCMAccessTokens(account: Self.account, exchange: endpoint.exchange)
        let values = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<50 { group.addTask { try await tokens.token().value } }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(values == ["token-1"])
        #expect(endpoint.calls.load(ordering: .relaxed) == 1)
    }

    @Test("kept until five minutes before it expires, then renewed; a 401 renews it at once, once")
    func renewal() async throws {
        let clock = NIOLockedValueBox(Date(timeIntervalSince1970: 1_000_000))
        let endpoint = Endpoint { call in ("token-\(call)", 3600) }
        let tokens = FCMAccessTokens(
            account: Self.account, exchange: endpoint.exchange, now: { clock.withLockedValue { $0 } })
        let first = try await tokens.token()
        #expect(first.expiresAt == Date(timeIntervalSince1970: 1_003_600))
        clock.withLockedValue { $0 += 3600 - 301 }
        #expect(try await tokens.token() == first, "still more than five minutes to go")
        clock.withLockedValue { $0 += 2 }
        let second = try await tokens.token()
        #expect(second.value == "token-2")
        let third = try await tokens.renew(afterRejecting: second)
        #expect(third.value == "token-3")
        #expect(try await tokens.renew(afterRejecting: second) == third, "an older rejection does not fetch again")
        #expect(tokens.tokensFetched == 3)
    }

    @Test("a refusal and an outage come back as such, and the next call tries again")
    func failures() async throws {
        let endpoint = Endpoint { call throws(FCMTokenError) in
            switch call {
            case 1: throw .refused("HTTP 400 invalid_grant: Invalid JWT Signature.")
            case 2: throw .unavailable("HTTP 503")
            default: return ("token-\(call)", 3600)
            }
        }
        let tokens = FCMAccessTokens(account: Self.account, exchange: endpoint.exchange)
        await #expect(throws: FCMTokenError.refused("HTTP 400 invalid_grant: Invalid JWT Signature.")) {
            try await tokens.token()
        }
        await #expect(throws: FCMTokenError.unavailable("HTTP 503")) { try await tokens.token() }
        #expect(try await tokens.token().value == "token-3")
    }
}
