import Foundation
import PushgateCore

/// What Codex's `notify` program gets as its last argument (issue 74), and the gateway
/// call it becomes. Codex (codex-rs `hooks/src/legacy_notify.rs`, whose tests pin
/// the wire; `docs/config.md` shows it without `thread-id` and `cwd`, which older
/// versions left out) sends one type, `agent-turn-complete`:
/// `{"type", "thread-id", "turn-id", "cwd", "input-messages": [..], "last-assistant-message"}`
/// (the last may be null). A finished turn becomes `triggerReplyFinished`, as Claude
/// Code's `Stop` does: the last message as its preview, the thread as its
/// conversation. Codex starts the program with its standard streams connected to
/// nothing, and neither waits for it nor stops it.
public struct CodexNotification: Sendable, Equatable {
    /// Longer than any argument a shell passes in one piece; the rest is ignored.
    public static let maxInputBytes = ClaudeHookEvent.maxInputBytes

    public let cwd: String
    public let threadID: String?
    public let turnID: String?
    public let lastAssistantMessage: String?

    /// Reads the notification, or throws the one-line reason it is not sent (another
    /// type, no usable `cwd`, no JSON object).
    public init(json bytes: some Collection<UInt8>) throws(ClaudeHookEvent.Unusable) {
        guard bytes.count <= Self.maxInputBytes else {
            throw ClaudeHookEvent.Unusable(description: "the Codex notification is over \(Self.maxInputBytes) bytes")
        }
        let parsed: JSONValue
        do {
            parsed = try JSONValue.parse(bytes)
        } catch {
            throw ClaudeHookEvent.Unusable(description: "the Codex notification is not JSON (\(error))")
        }
        guard let object = parsed.objectValue else {
            throw ClaudeHookEvent.Unusable(description: "the Codex notification is not a JSON object")
        }
        let type = object["type"]?.stringValue
        guard type == "agent-turn-complete" else {
            throw ClaudeHookEvent.Unusable(
                description:
                    "Codex notification type \(type.map { "'\(InvisibleCharacters.escaped(String($0.prefix(64))))'" } ?? "missing"): only agent-turn-complete is sent"
            )
        }
        // As the gateway reads a cwd: 1 to 1,024 bytes, no invisible character.
        guard let cwd = object["cwd"]?.stringValue, !cwd.isEmpty, cwd.utf8.count <= 1024,
            InvisibleCharacters.first(in: cwd) == nil
        else {
            throw ClaudeHookEvent.Unusable(
                description: "the Codex notification has no usable cwd (1 to 1,024 bytes, no control characters)")
        }
        self.cwd = cwd
        threadID = object["thread-id"]?.stringValue.flatMap(ClaudeHookEvent.identifier)
        turnID = object["turn-id"]?.stringValue.flatMap(ClaudeHookEvent.identifier)
        lastAssistantMessage = object["last-assistant-message"]?.stringValue
    }

    /// The gateway function and body the finished turn becomes: stored and answered
    /// at once (`wait: false`), since Codex gives the program little time.
    public func call(now: Date) -> GatewayCall {
        var body: [String: JSONValue] = [
            "cwd": .string(cwd), "finished_at": .string(RFC3339.format(now)), "wait": false,
        ]
        body["message_preview"] = ClaudeHookEvent.preview(lastAssistantMessage).map(JSONValue.string)
        body["conversation_id"] = threadID.map(JSONValue.string)
        return GatewayCall(.triggerReplyFinished, body)
    }
}
