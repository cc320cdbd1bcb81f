import PushgateCore

/// A checked `resolveEvent` body (see `functions/resolveEvent/`).
public struct ResolveEventRequest: Sendable, Hashable {
    public let eventID: String
    /// `resolved` when absent or empty.
    public let resolution: String

    public init(fields: RequestFields) throws(FunctionError) {
        eventID = try fields.requiredString("event_id")
        guard (1...200).contains(eventID.count) else {
            throw .invalidArgument("'event_id' must be 1 to 200 characters", field: "event_id")
        }
        resolution =
            try fields.optionalString("resolution").map { text throws(FunctionError) in
                try FieldRules.text(text, field: "resolution", maxCharacters: 100)
            }.flatMap { $0.isEmpty ? nil : $0 } ?? "resolved"
    }
}
