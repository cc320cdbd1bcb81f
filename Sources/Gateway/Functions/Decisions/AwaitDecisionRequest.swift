import PushgateCore

/// A checked `awaitDecision` body (see `functions/awaitDecision/`).
public struct AwaitDecisionRequest: Sendable, Hashable {
    /// The longest wait one call may ask for.
    public static let maxWait: Int64 = 300

    public let eventID: String
    /// Seconds, 0 (answer at once) to ``maxWait``.
    public let wait: Int64

    public init(fields: RequestFields) throws(FunctionError) {
        eventID = try fields.requiredString("event_id")
        guard (1...200).contains(eventID.count) else {
            throw .invalidArgument("'event_id' must be 1 to 200 characters", field: "event_id")
        }
        wait = try fields.optionalInteger("wait", in: 0...Self.maxWait) ?? 0
    }
}
