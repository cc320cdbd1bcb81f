import PushgateCore

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
