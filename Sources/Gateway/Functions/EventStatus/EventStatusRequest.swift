import PushgateCore

/// A checked `eventStatus` body (see `functions/eventStatus/`): the event whose
/// pushes are asked after, by the id its trigger's answer named.
public struct EventStatusRequest: Sendable, Hashable {
    public let eventID: String

    public init(fields: RequestFields) throws(FunctionError) {
        eventID = try fields.requiredString("event_id")
        guard (1...200).contains(eventID.count) else {
            throw .invalidArgument("'event_id' must be 1 to 200 characters", field: "event_id")
        }
    }
}
