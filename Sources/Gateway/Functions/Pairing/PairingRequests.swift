import PushgateCore
import PushgateSealing

/// A checked `startPairing` body (see `functions/startPairing/`): how long the pairing
/// stays open.
public struct StartPairingRequest: Sendable, Hashable {
    /// Seconds the pairing stays open: 1 to an hour, 600 when not given.
    public static let waits: ClosedRange<Int64> = 1...3_600
    public static let defaultWait: Int64 = 600

    public let wait: Int64

    public init(fields: RequestFields) throws(FunctionError) {
        wait = try fields.optionalInteger("wait", in: Self.waits) ?? Self.defaultWait
    }
}

/// A checked `completePairing` body (see `functions/completePairing/`): a phone's
/// signature over the pairing and the code it was shown (``SignedPairing``).
public struct CompletePairingRequest: Sendable, Hashable {
    public let pairingID: String
    public let installationID: String
    public let signedAt: Int64
    public let signature: String

    public init(fields: RequestFields) throws(FunctionError) {
        pairingID = try PairingID.checked(fields.requiredString("pairing_id"))
        installationID = try FieldRules.installationID(fields.requiredString("installation_id"))
        signedAt = try fields.requiredInteger("signed_at", in: 1...253_402_300_799)
        signature = try fields.requiredString("signature")
        guard signature.utf8.count <= 100, let raw = Base64URL.decode(signature), raw.count == 64 else {
            throw .invalidArgument(
                "'signature' must be the base64url of a raw 64-byte ECDSA P-256 signature (r‖s)", field: "signature")
        }
    }
}

/// A checked `awaitPairing` body (see `functions/awaitPairing/`): the pairing, how
/// long to wait for a completion, and how many completions the caller has seen.
public struct AwaitPairingRequest: Sendable, Hashable {
    /// The longest wait one call may ask for, as `awaitDecision`'s.
    public static let maxWait: Int64 = 300

    public let pairingID: String
    /// Seconds, 0 (answer at once) to ``maxWait``.
    public let wait: Int64
    /// The completions the caller has seen: the call answers once there are more.
    public let seen: Int

    public init(fields: RequestFields) throws(FunctionError) {
        pairingID = try PairingID.checked(fields.requiredString("pairing_id"))
        wait = try fields.optionalInteger("wait", in: 0...Self.maxWait) ?? 0
        seen = Int(try fields.optionalInteger("seen", in: 0...Int64(PairingCompletion.maxPerPairing)) ?? 0)
    }
}

/// A pairing's id as the gateway makes them: 32 lower-case hex digits (128 random bits).
enum PairingID {
    static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        return Hex.string((0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    static func checked(_ text: String) throws(FunctionError) -> String {
        guard text.utf8.count == 32, Hex.bytes(text) != nil else {
            throw .invalidArgument(
                "'pairing_id' must be 32 lower-case hex digits, as startPairing made it", field: "pairing_id")
        }
        return text
    }
}
