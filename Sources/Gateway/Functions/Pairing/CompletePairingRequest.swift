import PushgateCore
import PushgateSealing

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
