import Foundation
import PushgateAgentHooks
import PushgateCore
import Testing

/// Questions with choices (issue 84): AskUserQuestion's questions and an elicitation's
/// form read as Claude Code sends them, carried to the phone, and the person's answer
/// checked against them before the agent hears it.
@Suite("Questions with choices")
struct ChoicesTests {
    let asked: JSONValue = [
        "questions": [
            [
                "question": "Which database?", "header": "Database",
                "options": [
                    ["label": "PostgreSQL", "description": "prod"], ["label": "SQLite", "description": "local"],
                ],
                "multiSelect": false,
            ],
            [
                "question": "Which checks?", "header": "Checks", "options": [["label": "lint"], ["label": "tests"]],
                "multiSelect": true,
            ],
        ]
    ]
    let schema: JSONValue = [
        "type": "object", "required": ["environment", "replicas"],
        "properties": [
            "environment": ["type": "string", "enum": ["staging", "production"]],
            "replicas": ["type": "integer", "minimum": 1, "maximum": 10],
            "notify": ["type": "boolean"],
            "note": ["type": "string", "maxLength": 10],
        ],
    ]

    func event(_ object: [String: JSONValue]) throws -> ClaudeHookEvent {
        var object = object
        object["cwd"] = "/srv/app"
        object["session_id"] = "s1"
        return try ClaudeHookEvent(json: Array(try JSONValue.object(object).encodedBytes()))
    }

    @Test("AskUserQuestion: every question answered, with a label or the person's own words; nothing else")
    func askUserQuestion() throws {
        let choices = try Choices.askUserQuestion(asked)
        #expect(
            try choices.read(#"{"Which database?": "SQLite", "Which checks?": "lint, tests"}"#)
                == ["Which database?": "SQLite", "Which checks?": "lint, tests"])
        // Claude Code's own dialog takes words of the person's under "Other".
        #expect(
            try choices.read(#"{"Which database?": "the staging copy", "Which checks?": "none"}"#)
                == ["Which database?": "the staging copy", "Which checks?": "none"])
        for bad in [
            #"{"Which database?": "SQLite"}"#, #"{"Which database?": "SQLite", "Which checks?": " "}"#,
            #"{"Which database?": "SQLite", "Which checks?": "lint", "Delete it?": "yes"}"#, "SQLite",
            #"{"Which database?": 3, "Which checks?": "lint"}"#,
        ] {
            #expect(throws: Choices.Unusable.self, "\(bad)") { try choices.read(bad) }
        }
        // One question: plain words answer it (a phone that only has a text field).
        let one = try Choices.askUserQuestion(["questions": [["question": "Ship it?", "options": []]]])
        #expect(try one.read("Not today") == ["Ship it?": "Not today"])

        let request = try event([
            "hook_event_name": "PermissionRequest", "tool_name": "AskUserQuestion", "tool_input": asked,
        ])
        #expect(request.asksThePhone && request.choices == choices)
        let call = request.call(now: Date(), questionID: "claude-q1") { nil }
        #expect(call.body["type"] == "question_asked" && call.body["event_id"] == "claude-q1")
        #expect(call.body["title"] == "Database" && call.body["choices"] == choices.json)
        #expect(
            request.output(answered: ["Which database?": "SQLite"]).line
                == #"{"hookSpecificOutput":{"decision":{"behavior":"allow","updatedInput":{"answers":{"Which database?":"SQLite"},"questions":\#(String(decoding: try asked.objectValue!["questions"]!.encodedBytes(), as: UTF8.self))}},"hookEventName":"PermissionRequest"}}"#
        )
        // What a push cannot carry as the gateway takes it: the terminal asks alone.
        #expect(throws: Choices.Unusable.self) {
            try Choices.askUserQuestion(["questions": [["question": "Ship\u{202E}it?", "options": []]]])
        }
        let long = JSONValue.array((0..<10).map { .string("option \($0) " + String(repeating: "x", count: 180)) })
        #expect(throws: Choices.Unusable.self) {
            try Choices.askUserQuestion([
                "questions": [["question": "Which?", "options": long], ["question": "And?", "options": long]]
            ])
        }
        // Codex has no AskUserQuestion: its permission requests stay approvals.
        let codex = try event([
            "hook_event_name": "PermissionRequest", "tool_name": "AskUserQuestion", "tool_input": asked,
            "turn_id": "t1",
        ])
        #expect(codex.choices == nil)
    }

    @Test("a form elicitation: each value of its field's type and bounds, the required ones there, no other")
    func form() throws {
        let choices = try Choices.form(schema)
        let content: JSONValue = ["environment": "staging", "replicas": 3, "notify": true]
        #expect(try choices.read(#"{"environment": "staging", "replicas": 3, "notify": true}"#) == content)
        for bad in [
            #"{"environment": "qa", "replicas": 3}"#, #"{"environment": "staging", "replicas": 11}"#,
            #"{"environment": "staging", "replicas": 2.5}"#, #"{"environment": "staging"}"#,
            #"{"environment": "staging", "replicas": 3, "notify": "yes"}"#,
            #"{"environment": "staging", "replicas": 3, "note": "far too long a note"}"#,
            #"{"environment": "staging", "replicas": 3, "admin": true}"#, "staging",
        ] {
            #expect(throws: Choices.Unusable.self, "\(bad)") { try choices.read(bad) }
        }
        let elicitation = try event([
            "hook_event_name": "Elicitation", "mcp_server_name": "deploy-tools", "message": "Where to?", "mode": "form",
            "requested_schema": schema, "elicitation_id": "e1",
        ])
        #expect(elicitation.asksThePhone)
        #expect(elicitation.call(now: Date(), questionID: "claude-f1") { nil }.body["title"] == "deploy-tools asks")
        #expect(
            elicitation.output(answered: content).line
                == #"{"hookSpecificOutput":{"action":"accept","content":{"environment":"staging","notify":true,"replicas":3},"hookEventName":"Elicitation"}}"#
        )
        // A nested schema is no flat form: the terminal asks alone, the phone is told.
        #expect(throws: Choices.Unusable.self) {
            try Choices.form(["type": "object", "properties": ["deep": ["type": "object"]]])
        }
    }

    @Test("a URL elicitation opens its page from the push, and waits for nothing")
    func url() throws {
        let elicitation = try event([
            "hook_event_name": "Elicitation", "mcp_server_name": "github", "message": "Sign in to GitHub",
            "mode": "url", "url": "https://github.com/login/device", "elicitation_id": "e2",
        ])
        #expect(!elicitation.asksThePhone)
        let call = elicitation.call(now: Date()) { nil }
        #expect(call.body["type"] == "waiting_for_input" && call.body["web_url"] == "https://github.com/login/device")
        #expect(call.body["title"] == "github asks" && call.body["body"] == "Sign in to GitHub")
    }
}
