import PushgateCore

/// A checked `receipts` body (see `functions/receipts/`): an installation's word on
/// up to 100 events' pushes — they reached it, or the person opened them.
public struct ReceiptsRequest: Sendable, Hashable {
    public let installationID: String
    public let eventIDs: [String]
    public let kind: DeliveryReceipt.Kind

    public init(fields: RequestFields) throws(FunctionError) {
        installationID = try FieldRules.installationID(fields.requiredString("installation_id"))
        let kindName = try fields.requiredString("kind")
        guard let kind = DeliveryReceipt.Kind(rawValue: kindName) else {
            throw .invalidArgument("'kind' must be delivered or opened", field: "kind")
        }
        self.kind = kind
        let ids = try fields.requiredStrings("event_ids")
        guard (1...DeliveryReceipt.maxEvents).contains(ids.count) else {
            throw .invalidArgument(
                "'event_ids' names 1 to \(DeliveryReceipt.maxEvents) events, not \(ids.count)", field: "event_ids")
        }
        for id in ids where !(1...200).contains(id.count) {
            throw .invalidArgument("each of 'event_ids' must be 1 to 200 characters", field: "event_ids")
        }
        // A repeat names nothing new.
        var seen: Set<String> = []
        eventIDs = ids.filter { seen.insert($0).inserted }
    }
}
