import PushgateCore

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
