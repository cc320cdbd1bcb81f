import PushgateCore

/// What a hook prints on standard output for its agent (Claude Code's and Codex's
/// documented shapes; an HTTP hook's 2xx body): nothing is printed where there is none.
public enum HookOutput: Sendable, Equatable {
    /// A `PermissionRequest`'s allow.
    case allow
    /// An allow that applies permission updates from now on (Claude Code's
    /// `updatedPermissions`: suggestions of the request echoed back, issue 84).
    case allowAlways(updatedPermissions: [JSONValue])
    /// A `PermissionRequest`'s deny, with the message the agent shows.
    case deny(message: String)
    /// An `AskUserQuestion` answered (issue 84): the tool allowed with its input and the
    /// person's `answers`.
    case answers(updatedInput: JSONValue)
    /// An `Elicitation` form filled in from the phone: accepted with its `content`.
    case elicitation(content: JSONValue)
    /// A `Stop` hook's block: the agent does not stop, and goes on with the person's
    /// words as its reason to.
    case continueWith(words: String)

    /// The one JSON line.
    public var line: String {
        let output: JSONValue
        switch self {
        case .allow:
            output = ["hookSpecificOutput": ["hookEventName": "PermissionRequest", "decision": ["behavior": "allow"]]]
        case .allowAlways(let updates):
            output = [
                "hookSpecificOutput": [
                    "hookEventName": "PermissionRequest",
                    "decision": ["behavior": "allow", "updatedPermissions": .array(updates)],
                ]
            ]
        case .deny(let message):
            output = [
                "hookSpecificOutput": [
                    "hookEventName": "PermissionRequest",
                    "decision": ["behavior": "deny", "message": .string(message)],
                ]
            ]
        case .answers(let input):
            output = [
                "hookSpecificOutput": [
                    "hookEventName": "PermissionRequest", "decision": ["behavior": "allow", "updatedInput": input],
                ]
            ]
        case .elicitation(let content):
            output = ["hookSpecificOutput": ["hookEventName": "Elicitation", "action": "accept", "content": content]]
        case .continueWith(let words):
            output = ["decision": "block", "reason": .string(words)]
        }
        return (try? output.encodedBytes()).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }
}
