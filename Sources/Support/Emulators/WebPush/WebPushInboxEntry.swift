import Foundation
import PushgateCore

/// One push the Web Push emulator received, opened with its subscription's keys when
/// it was accepted, and the answer it got.
public struct WebPushInboxEntry: EmulatorInboxEntry, Hashable {
    public let receivedAt: Date
    /// The subscription's id: the last segment of its endpoint.
    public let subscription: String
    public let status: Int
    /// Why a push was refused (`vapid_audience`, `ttl_missing`, `gone`, …).
    public let error: String?
    /// `ttl`, `urgency`, `topic`, `content-encoding`, `authorization` as sent.
    public let headers: [String: String]
    /// The record's size in bytes.
    public let size: Int
    /// What the record opened to: the JSON the sender sealed (or its text), `nil`
    /// when refused before it was opened.
    public let payload: JSONValue?

    public var json: JSONValue {
        var object: [String: JSONValue] = [
            "received_at": .string(RFC3339.format(receivedAt)), "subscription": .string(subscription),
            "status": .number(Double(status)), "headers": .object(headers.mapValues(JSONValue.string)),
            "size": .number(Double(size)), "payload": payload ?? .null,
        ]
        object["error"] = error.map(JSONValue.string)
        return .object(object)
    }
}
