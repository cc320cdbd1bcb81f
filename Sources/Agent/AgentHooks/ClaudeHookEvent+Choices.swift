import Foundation
import PushgateCore

/// Questions with choices (issue 84): Claude Code's `AskUserQuestion` (reached through
/// the `PermissionRequest` hook) and an MCP server's `Elicitation` go to the phone as a
/// `question_asked` with its ``Choices``; the answer goes back as Claude Code documents
/// each — the tool allowed with `updatedInput.answers`, the elicitation accepted with
/// its `content`. A URL elicitation opens its page from the push.
extension ClaudeHookEvent {
    /// What the person is asked with choices; `nil` for any other event, or one whose
    /// questions or form a phone cannot take (the terminal then asks alone).
    public var choices: Choices? {
        switch kind {
        case .permissionRequest(let tool?) where tool == "AskUserQuestion" && turnID == nil:
            try? Choices.askUserQuestion(toolInput)
        case .elicitation(let mode) where mode != "url":
            try? Choices.form(requestedSchema)
        default:
            nil
        }
    }

    /// Whether the hook asks the phone and waits: a permission request (an approval, or
    /// AskUserQuestion's questions), or a form elicitation the phone can take.
    public var asksThePhone: Bool {
        switch kind {
        case .permissionRequest: true
        case .elicitation: choices != nil
        default: false
        }
    }

    /// The hook's output for the person's answer, as ``Choices/read(_:)`` made it.
    public func output(answered: JSONValue) -> HookOutput {
        guard case .elicitation = kind else {
            var input = toolInput?.objectValue ?? [:]
            input["answers"] = answered
            return .answers(updatedInput: .object(input))
        }
        return .elicitation(content: answered)
    }

    /// A page a push can open (the gateway's `web_url`): http or https with a host, at
    /// most 2,048 bytes, nothing invisible or blank in it.
    static func isOpenable(_ url: String) -> Bool {
        let lower = url.lowercased()
        let prefix = lower.hasPrefix("https://") ? 8 : lower.hasPrefix("http://") ? 7 : 0
        return prefix > 0 && url.count > prefix && url.utf8.count <= 2048 && !url.contains(where: \.isWhitespace)
            && InvisibleCharacters.first(in: url) == nil
    }

    /// The push of a question with choices (`questionID` its event id), or, for a URL
    /// elicitation or one the phone cannot take, a `waiting_for_input` that says so.
    func choiceCall(now: Date, questionID: String?) -> GatewayCall {
        var body: [String: JSONValue] = ["cwd": .string(cwd), "wait": false]
        if let sessionID { body["data"] = ["conversation_id": .string(sessionID)] }
        let asker = serverName.flatMap { Self.title(String($0.prefix(64))) }
        guard let choices else {
            body["type"] = "waiting_for_input"
            body["occurred_at"] = .string(RFC3339.format(now))
            body["title"] = .string(asker.map { "\($0) asks" } ?? "Claude asks")
            body["body"] = Self.preview(message ?? "A question waits at the terminal").map(JSONValue.string)
            // A page to open (URL mode): the push opens it.
            if let url, Self.isOpenable(url) { body["web_url"] = .string(url) }
            return GatewayCall(.triggerEvent, body)
        }
        let eventID = questionID ?? QuestionID.make(prefix: "claude")
        body["type"] = "question_asked"
        body["event_id"] = .string(eventID)
        body["idempotency_key"] = .string(eventID)
        body["choices"] = choices.json
        switch choices {
        case .questions(let items):
            body["title"] = .string(items.first?.header.flatMap(Self.title) ?? "Claude asks")
            body["body"] = Self.preview(items.map(\.question).joined(separator: " ")).map(JSONValue.string)
        case .form:
            body["title"] = .string(asker.map { "\($0) asks" } ?? "A form to fill in")
            body["body"] = Self.preview(message ?? "Fill in the form").map(JSONValue.string)
        }
        return GatewayCall(.triggerEvent, body)
    }
}
