import Foundation
import PushgateCore

/// One push the APNs emulator received and the answer it got.
public struct APNsInboxEntry: EmulatorInboxEntry, Hashable {
    public let receivedAt: Date
    public let deviceToken: String
    /// Lower-case header names; pseudo-headers left out.
    public let headers: [String: String]
    /// The payload as JSON, or `nil` when it was not JSON.
    public let payload: JSONValue?
    public let status: Int
    public let reason: String?

    public var json: JSONValue {
        var object: [String: JSONValue] = [
            "received_at": .string(RFC3339.format(receivedAt)),
            "device_token": .string(deviceToken),
            "headers": .object(headers.mapValues(JSONValue.string)),
            "payload": payload ?? .null,
            "status": .number(Double(status)),
        ]
        object["reason"] = reason.map(JSONValue.string)
        return .object(object)
    }
}
