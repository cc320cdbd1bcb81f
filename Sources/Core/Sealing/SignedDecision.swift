import Foundation

#if canImport(CryptoKit)
    import CryptoKit
#else
    import Crypto
#endif

/// A person's answer to an approval (issue 73) or, in words, to a question or a
/// reply (issue 74), signed by their phone's decision key: ECDSA P-256 over SHA-256 of the UTF-8 text
///
/// ```
/// pushgate-decision-v1\n<server_key>\n<event_id>\n<installation_id>\n<decision>\n<signed_at>\n<message or empty>
/// ```
///
/// where `<decision>` is the word, and for a decision bound to more than its event
/// the word, a colon and its ``scope``: a message to an agent (issue 84) reads
/// `say:<agent_key>`, so that its words are heard by that agent only; an "always
/// allow" `allow_always:<suggestion index>`, so that it applies the suggestion signed.
///
/// the signature raw `r‖s` (64 bytes), base64url. The gateway checks it before it
/// takes a decision; the waiting hook checks it again against the key it pinned, so a
/// gateway that lies cannot allow a command.
public struct SignedDecision: Sendable, Hashable {
    public enum Decision: String, Sendable, Hashable, CaseIterable {
        case allow, deny
        /// Allow, and apply the permission suggestion the approval offered (issue 84):
        /// its index is the ``scope``, the decision line `allow_always:<index>`.
        case allowAlways = "allow_always"
        /// Words in answer to a question or a reply (issue 74): the words are `message`.
        case answer
        /// Words the person sends an agent unasked (issue 84): `message`, under an id the
        /// phone made (the signed text's event id), bound to the agent by ``scope``.
        case say

        /// The longest `message` this decision takes.
        public var maxMessageCharacters: Int {
            self == .answer || self == .say ? SignedDecision.maxAnswerCharacters : SignedDecision.maxMessageCharacters
        }
    }

    /// The first line of every signed text: what a signature is for, and its version.
    public static let label = "pushgate-decision-v1"
    /// The longest `message` of an allow or a deny: a reason.
    public static let maxMessageCharacters = 1000
    /// The longest answer in words.
    public static let maxAnswerCharacters = 4000
    /// How far `signed_at` may be from the gateway's clock, either way.
    public static let maxClockSkew: TimeInterval = 300

    public let serverKey: String
    public let eventID: String
    public let installationID: String
    public let decision: Decision
    /// Unix seconds.
    public let signedAt: Int64
    public let message: String?
    /// Base64url of the raw 64-byte signature.
    public let signature: String
    /// What the decision is bound to beside its event, signed after its word: the
    /// agent key of a message (``Decision/say``), the suggestion an "always allow"
    /// applies (``Decision/allowAlways``); `nil` for the rest.
    public let scope: String?

    public init(
        serverKey: String, eventID: String, installationID: String, decision: Decision, signedAt: Int64,
        message: String?, signature: String, scope: String? = nil
    ) {
        self.serverKey = serverKey
        self.eventID = eventID
        self.installationID = installationID
        self.decision = decision
        self.signedAt = signedAt
        self.message = message
        self.signature = signature
        self.scope = scope
    }

    /// The text the phone signs.
    public static func signedText(
        serverKey: String, eventID: String, installationID: String, decision: Decision, signedAt: Int64,
        message: String?, scope: String? = nil
    ) -> Data {
        let line = decision.rawValue + (scope.map { ":" + $0 } ?? "")
        return Data(
            [label, serverKey, eventID, installationID, line, String(signedAt), message ?? ""]
                .joined(separator: "\n").utf8)
    }

    public var signedText: Data {
        Self.signedText(
            serverKey: serverKey, eventID: eventID, installationID: installationID, decision: decision,
            signedAt: signedAt, message: message, scope: scope)
    }

    /// Whether `key` signed this decision.
    public func isSigned(by key: DecisionKey) -> Bool {
        guard let raw = Base64URL.decode(signature), raw.count == 64,
            let parsed = try? P256.Signing.ECDSASignature(rawRepresentation: raw)
        else { return false }
        return key.publicKey.isValidSignature(parsed, for: signedText)
    }

    /// Whether it was signed within ``maxClockSkew`` of `now`.
    public func isFresh(at now: Date) -> Bool {
        abs(Double(signedAt) - now.timeIntervalSince1970) <= Self.maxClockSkew
    }

    /// Signs as a phone does (the client package, the emulators' phone, `pushgate decide`).
    public static func sign(
        with key: P256.Signing.PrivateKey, serverKey: String, eventID: String, installationID: String,
        decision: Decision, signedAt: Int64, message: String?, scope: String? = nil
    ) throws -> SignedDecision {
        let text = signedText(
            serverKey: serverKey, eventID: eventID, installationID: installationID, decision: decision,
            signedAt: signedAt, message: message, scope: scope)
        let signature = try key.signature(for: text)
        return SignedDecision(
            serverKey: serverKey, eventID: eventID, installationID: installationID, decision: decision,
            signedAt: signedAt, message: message, signature: Base64URL.encode(signature.rawRepresentation),
            scope: scope)
    }
}
