import PushgateCore

extension LiveActivityPush {
    /// The most an ActivityKit push's payload may take: 4 KB, as an alert's (Apple
    /// refuses a larger one `PayloadTooLarge`; `ActivityAuthorizationError.attributesTooLarge`
    /// says the same of a start's attributes).
    public static let maxAPNsPayloadBytes = 4096

    /// The APNs payload.
    public func apnsPayload() throws -> [UInt8] {
        var aps: [String: JSONValue] = [
            "timestamp": .number(Double(timestamp)), "event": .string(event.rawValue), "content-state": contentState,
        ]
        if let alert {
            var object: [String: JSONValue] = ["title": .string(alert.title), "body": .string(alert.body)]
            object["sound"] = alert.sound.map(JSONValue.string)
            aps["alert"] = .object(object)
        }
        aps["attributes-type"] = attributesType.map(JSONValue.string)
        aps["attributes"] = attributes
        aps["stale-date"] = staleDate.map { .number(Double($0)) }
        aps["dismissal-date"] = dismissalDate.map { .number(Double($0)) }
        aps["relevance-score"] = relevanceScore.map { .number(Double($0)) }
        // iOS 18 hands the app the new activity's update token only when the start
        // asks for it; without it no update and no end reaches the activity.
        if event == .start { aps["input-push-token"] = .number(1) }
        return try JSONValue.object(["aps": .object(aps)]).encodedBytes()
    }
}

extension LiveActivityCarrier {
    /// APNs carries Live Activities (ActivityKit pushes), to tokens of Apple's format.
    public static let apns = LiveActivityCarrier(service: .apns, maxPayloadBytes: LiveActivityPush.maxAPNsPayloadBytes)
    { try $0.apnsPayload() }
}
