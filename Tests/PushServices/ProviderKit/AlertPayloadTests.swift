import PushgateCore
import PushgateFunctions
import PushgateProviderKit
import Testing

@Suite("Alert payload")
struct AlertPayloadTests {
    @Test("a badge update's payload is the badge alone, an integer")
    func badgeOnly() throws {
        #expect(String(decoding: try BadgePayload.encode(badge: 3), as: UTF8.self) == #"{"aps":{"badge":3}}"#)
        #expect(String(decoding: try BadgePayload.encode(badge: 0), as: UTF8.self) == #"{"aps":{"badge":0}}"#)
    }

    /// Apple's `interruption-level` passive: "added to the notification list without
    /// lighting up the screen or playing a sound" — and the payload names none (the
    /// hook's `auth_success`, issue 72).
    @Test("a passive event names no sound; an active one the default")
    func passiveIsSilent() throws {
        var event = EventComposer.Event(type: .custom("auth_success"), cwd: "/srv/a")
        event.interruptionLevel = "passive"
        let key = ServerKey(hex: String(repeating: "a", count: 64))
        let passive = EventComposer.notification(
            for: event, displayName: nil, serverKey: key, agentKey: AgentKey(cwd: "/srv/a"))
        let aps = try JSONValue.parse(try AlertPayload.encode(passive, badge: nil)).objectValue?["aps"]?.objectValue
        #expect(aps?["sound"] == nil && aps?["interruption-level"] == "passive")
        event.interruptionLevel = nil
        let active = EventComposer.notification(
            for: event, displayName: nil, serverKey: key, agentKey: AgentKey(cwd: "/srv/a"))
        let sounding = try JSONValue.parse(try AlertPayload.encode(active, badge: nil)).objectValue?["aps"]
        #expect(sounding?.objectValue?["sound"] == "default")
    }

    @Test("the longest allowed inputs stay within 4,096 bytes")
    func longestInputs() throws {
        // Every field at its limit, in characters that cost the most bytes in JSON:
        // quotes and backslashes (2 bytes escaped), 4-byte emoji, and in a preview the
        // only control characters allowed (tabs and line breaks, 2 bytes escaped).
        let cwd = String(repeating: "\"", count: 1024)
        let fields = RequestFields([
            "cwd": .string(cwd),
            "conversation_id": .string(String(repeating: "😀", count: 200)),
            "message_preview": .string(String(repeating: "\t\"", count: 5000)),
        ])
        let request = try TriggerReplyFinishedRequest(fields: fields)
        let title = String(repeating: "\\", count: 200)
        let notification = PushNotification(
            title: ReplyNotificationComposer.title(displayName: title, cwd: cwd),
            body: ReplyNotificationComposer.body(preview: request.messagePreview),
            data: [
                "type": "reply_finished", "server_key": .string(String(repeating: "a", count: 64)), "cwd": .string(cwd),
                "conversation_id": .string(request.conversationID!),
            ],
            collapseID: AgentKey(cwd: cwd).hex
        )
        let bytes = try AlertPayload.encode(notification)
        #expect(bytes.count <= 4096)
        let payload = try #require(try JSONValue.parse(bytes).objectValue)
        #expect(payload["type"] == "reply_finished")
        #expect(payload["server_key"] == .string(String(repeating: "a", count: 64)))
    }

    @Test("a realistic long notification is cut in the body first, keeping every custom key")
    func cutsBodyFirst() throws {
        let notification = PushNotification(
            title: "Agent",
            body: String(repeating: "é", count: 3000),
            data: [
                "type": "reply_finished", "server_key": "k",
                "cwd": .string("/srv/" + String(repeating: "d", count: 1000)),
            ],
            collapseID: "c"
        )
        let bytes = try AlertPayload.encode(notification)
        #expect(bytes.count <= 4096 && bytes.count > 4000, "uses the room there is")
        let payload = try #require(try JSONValue.parse(bytes).objectValue)
        let alert = payload["aps"]?.objectValue?["alert"]?.objectValue
        #expect(alert?["title"] == "Agent")
        #expect(alert?["body"]?.stringValue?.hasSuffix("…") == true)
        #expect(payload["cwd"] == .string("/srv/" + String(repeating: "d", count: 1000)))
    }

    @Test("a payload within the limit is left whole")
    func untouched() throws {
        let notification = PushNotification(title: "T", body: "B", data: ["type": "x"], collapseID: "c")
        let text = String(decoding: try AlertPayload.encode(notification), as: UTF8.self)
        #expect(text == #"{"aps":{"alert":{"body":"B","title":"T"},"sound":"default"},"type":"x"}"#)
    }

    @Test("nothing invisible reaches a lock screen: overrides and controls gone, separators as line breaks")
    func invisibles() throws {
        let notification = PushNotification(
            title: "deploy\u{202E}gpj\u{2028}.exe\u{9B}", body: "one\u{2028}two\u{2066}\u{85}three\u{7F}\r\nfour",
            data: [:], collapseID: "c")
        let fitted = try AlertPayload.fit(notification)
        #expect(fitted.title == "deploygpj .exe")
        #expect(fitted.body == "one\ntwo\nthree\nfour")
    }

    @Test("badge, thread-id and interruption-level go inside aps; no badge unless the notification shows one")
    func apsFields() throws {
        let shown = PushNotification(
            title: "T", body: "B", data: ["type": "approval_requested"], collapseID: "c", threadID: "agent",
            interruptionLevel: "time-sensitive", showsBadge: true)
        let text = String(decoding: try AlertPayload.encode(shown, badge: 3), as: UTF8.self)
        #expect(
            text
                == #"{"aps":{"alert":{"body":"B","title":"T"},"badge":3,"interruption-level":"time-sensitive","sound":"default","thread-id":"agent"},"type":"approval_requested"}"#
        )
        let hidden = PushNotification(title: "T", body: "B", data: [:], collapseID: "c")
        #expect(!String(decoding: try AlertPayload.encode(hidden, badge: 3), as: UTF8.self).contains("badge"))
    }
}
