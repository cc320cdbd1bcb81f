import Foundation
import PushgateCore

/// One send the FCM emulator received and the answer it got.
public struct FCMInboxEntry: EmulatorInboxEntry, Hashable {
    public let receivedAt: Date
    /// `message.token` (or `fid`), empty when the message had another target.
    public let token: String
    /// The whole `message` as sent, or `nil` when the body was not JSON.
    public let message: JSONValue?
    /// A dry run (`validate_only: true`): checked, never delivered.
    public let validateOnly: Bool
    public let status: Int
    /// The FcmError code, else the google.rpc status, of an error answer.
    public let error: String?

    public var json: JSONValue {
        var object: [String: JSONValue] = [
            "received_at": .string(RFC3339.format(receivedAt)),
            "token": .string(token),
            "message": message ?? .null,
            "validate_only": .bool(validateOnly),
            "status": .number(Double(status)),
        ]
        object["error"] = error.map(JSONValue.string)
        return .object(object)
    }
}
