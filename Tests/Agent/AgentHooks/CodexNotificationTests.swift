import Foundation
import PushgateCore
import Testing

@testable import PushgateAgentHooks

@Suite("Codex's notify argument")
struct CodexNotificationTests {
    let now = Date(timeIntervalSince1970: 1_795_000_000)

    @Test("a finished turn becomes triggerReplyFinished: its last message the preview, its thread the conversation")
    func finishedTurn() throws {
        let turn = try CodexNotification(
            json: Array(
                #"{"type":"agent-turn-complete","thread-id":"t-1","turn-id":"7","cwd":"/srv/a","input-messages":["go"],"last-assistant-message":"Done:\n 3   files\u0007 changed."}"#
                    .utf8))
        let call = turn.call(now: now)
        let (function, body) = (call.function, call.body)
        #expect(function == .triggerReplyFinished)
        #expect(body["cwd"] == "/srv/a" && body["conversation_id"] == "t-1" && body["wait"] == false)
        #expect(body["message_preview"] == "Done: 3 files changed.")
        #expect(body["finished_at"] == .string(RFC3339.format(now)))

        let silent = try CodexNotification(
            json: Array(#"{"type":"agent-turn-complete","cwd":"/srv/a","last-assistant-message":null}"#.utf8))
        #expect(silent.call(now: now).body["message_preview"] == nil)
    }

    @Test(
        "refused with its reason: another type, no cwd, not an object, not JSON",
        arguments: [
            (#"{"type":"approval-requested","cwd":"/srv/a"}"#, "only agent-turn-complete"),
            (#"{"type":"agent-turn-complete"}"#, "no usable cwd"),
            (#"{"type":"agent-turn-complete","cwd":"/srv/\u0000a"}"#, "no usable cwd"),
            (#"["agent-turn-complete"]"#, "not a JSON object"),
            (#"{"type":"#, "not JSON"),
        ])
    func refused(json: String, reason: String) {
        #expect {
            _ = try CodexNotification(json: Array(json.utf8))
        } throws: { error in
            "\(error)".contains(reason)
        }
    }
}
