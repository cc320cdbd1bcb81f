import Foundation
import PushgateCore
import PushgateSealing

/// The proof fields of a body a phone signed (`decideEvent`, `sayToAgent`): when it
/// was signed, and the signature.
enum SignedDecisionFields {
    static func read(_ fields: RequestFields) throws(FunctionError) -> (signedAt: Int64, signature: String) {
        let signedAt = try fields.requiredInteger("signed_at", in: 1...253_402_300_799)
        let signature = try fields.requiredString("signature")
        guard signature.utf8.count <= 100, let raw = Base64URL.decode(signature), raw.count == 64 else {
            throw .invalidArgument(
                "'signature' must be the base64url of a raw 64-byte ECDSA P-256 signature (r‖s)", field: "signature")
        }
        return (signedAt, signature)
    }

    /// Refuses `signed` unless it is fresh at `now` (400 `stale`) and `key` signed it
    /// (401 `bad_signature`, the message naming `what` it must be over).
    static func verify(_ signed: SignedDecision, by key: DecisionKey, at now: Date, over what: String)
        throws(FunctionError)
    {
        guard signed.isFresh(at: now) else {
            throw FunctionError(
                .invalidArgument,
                "'signed_at' is more than \(Int(SignedDecision.maxClockSkew)) s from the gateway's clock: sign again",
                field: "signed_at", reason: "stale")
        }
        guard signed.isSigned(by: key) else {
            throw FunctionError(
                .unauthenticated, "the signature is not this installation's decision key's over \(what)",
                field: "signature", reason: "bad_signature")
        }
    }
}
