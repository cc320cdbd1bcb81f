import Foundation
import PushgateCore

/// Claude Code's `notifications/claude/channel/permission_request` (issue 84; its
/// channels reference): a permission dialog the terminal shows, relayed to a channel
/// that declared `claude/channel/permission`. `request_id` is five letters a–z without
/// `l`; `input_preview` the tool's input as JSON, cut at 200 characters. The verdict
/// goes back as `notifications/claude/channel/permission {request_id, behavior}`.
public struct ChannelPermissionRequest: Sendable, Equatable {
    public let requestID: String
    public let toolName: String
    public let description: String?
    public let inputPreview: String

    /// The input keys that name what a tool acts on, in the order looked for.
    public static let argumentKeys = ["command", "file_path", "url", "pattern", "query", "prompt", "description"]

    /// Why the notification's params are not a permission request.
    public struct Unusable: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    public init(params: [String: JSONValue]) throws(Unusable) {
        guard let id = params["request_id"]?.stringValue, Self.isRequestID(id) else {
            throw Unusable(description: "a permission request whose request_id is not five letters a-z (no l)")
        }
        requestID = id
        guard let tool = params["tool_name"]?.stringValue, (1...128).contains(tool.count) else {
            throw Unusable(description: "the permission request \(id) names no tool")
        }
        toolName = tool
        description = params["description"]?.stringValue.map { String($0.prefix(4000)) }
        inputPreview = String((params["input_preview"]?.stringValue ?? "").prefix(4000))
    }

    static func isRequestID(_ text: String) -> Bool {
        text.utf8.count == 5 && text.utf8.allSatisfy { (0x61...0x7A).contains($0) && $0 != UInt8(ascii: "l") }
    }

    /// The approval it is pushed as: `triggerEvent` `approval_requested` under
    /// `eventID` (the question the channel waits on) — the tool as its title, the description (else the input) as its
    /// body — with the request's id in its data, for the app to show.
    public func call(cwd: String, eventID: String) -> GatewayCall {
        let tool = ClaudeHookEvent.title(String(toolName.prefix(64))) ?? "A tool"
        let summary = description.flatMap { $0.isEmpty ? nil : $0 } ?? inputPreview
        var body: [String: JSONValue] = [
            "cwd": .string(cwd), "type": "approval_requested", "event_id": .string(eventID),
            "idempotency_key": .string(eventID), "wait": false,
            "title": .string(tool + "?"),
            "data": ["request_id": .string(requestID)],
        ]
        body["body"] = ClaudeHookEvent.preview(summary).map(JSONValue.string)
        return GatewayCall(.triggerEvent, body)
    }
}
