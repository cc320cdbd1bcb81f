import Foundation
import NIOCore
import PushgateCore
import PushgateFCM
import Testing

/// The message sent per device: the production shape, strings only, within the limits.
@Suite("FCM message")
struct FCMMessageTests {
    func decoded(_ message: FCMMessage, token: String) throws -> JSONValue {
        // Between two others' bodies in the same buffer: each is its own slice.
        let bodies = FCMMessage.bodies([(message, "before"), (message, token), (message, "after")])
        var body = try #require(bodies.count == 3 ? bodies[1] : nil)
        return try JSONValue.parse(body.readBytes(length: body.readableBytes) ?? [])
    }

    @Test(
        "a badge update: no notification, an APNs alert push at priority 5 with only the badge (a badge is seen: not background)"
    )
    func badgeUpdate() throws {
        let json = try decoded(try FCMMessage(.badgeUpdate(serverKey: "s"), badge: 3), token: "cAbc:APA91b")
        #expect(
            json == [
                "message": [
                    "token": "cAbc:APA91b",
                    "data": ["type": "badge_update", "server_key": "s", "badge": "3"],
                    "apns": [
                        "headers": ["apns-push-type": "alert", "apns-priority": "5"],
                        "payload": ["aps": ["badge": 3]],
                    ],
                    "android": ["priority": "normal"],
                ]
            ])
    }

    @Test("a resolved event's update withdraws it: type event_resolved with its id in data, the iPhone's app woken")
    func withdrawal() throws {
        let resolved = ResolvedEvent(eventID: "deploy-8", resolution: "denied", title: "api", collapseID: "c")
        let json = try decoded(
            try FCMMessage(.badgeUpdate(serverKey: "s", resolved: resolved), badge: 0), token: "cAbc:APA91b")
        #expect(
            json == [
                "message": [
                    "token": "cAbc:APA91b",
                    "data": [
                        "type": "event_resolved", "server_key": "s", "event_id": "deploy-8", "resolution": "denied",
                        "badge": "0",
                    ],
                    "apns": [
                        "headers": ["apns-push-type": "alert", "apns-priority": "5"],
                        "payload": ["aps": ["badge": 0, "content-available": 1]],
                    ],
                    "android": ["priority": "normal"],
                ]
            ])
    }

    @Test("notification, string data, APNs headers and payload, Android collapse key, and the token")
    func shape() throws {
        let notification = PushNotification(
            title: "my-agent", body: "All tests pass.",
            data: ["type": "reply_finished", "server_key": "s", "cwd": "/srv/a", "coalesced_count": "3"],
            collapseID: "agent-key", threadID: "agent-key")
        let json = try decoded(try FCMMessage(notification, badge: nil), token: "cAbc:APA91b-x_y.z")
        #expect(
            json == [
                "message": [
                    "token": "cAbc:APA91b-x_y.z",
                    "notification": ["title": "my-agent", "body": "All tests pass."],
                    "data": ["type": "reply_finished", "server_key": "s", "cwd": "/srv/a", "coalesced_count": "3"],
                    "apns": [
                        "headers": ["apns-collapse-id": "agent-key", "apns-push-type": "alert", "apns-priority": "10"],
                        "payload": [
                            "aps": [
                                "alert": ["title": "my-agent", "body": "All tests pass."], "sound": "default",
                                "thread-id": "agent-key", "content-available": 1,
                            ]
                        ],
                    ],
                    "android": ["collapse_key": "agent-key", "priority": "high"],
                ]
            ])
    }

    @Test("an event keeps its badge and interruption level; an old stored push groups by its collapse id")
    func eventFields() throws {
        let approval = PushNotification(
            title: "Approval needed", body: "Deploy?", data: ["type": "approval_requested"], collapseID: "c",
            interruptionLevel: "time-sensitive", showsBadge: true)
        let json = try decoded(try FCMMessage(approval, badge: 4), token: "t")
        let aps = json.objectValue?["message"]?.objectValue?["apns"]?.objectValue?["payload"]?.objectValue?["aps"]
        #expect(aps?.objectValue?["badge"] == 4)
        #expect(aps?.objectValue?["interruption-level"] == "time-sensitive")
        #expect(aps?.objectValue?["thread-id"] == "c")
    }

    @Test("a passive push (quiet hours): Android shows it at the least priority, wakes nothing; the iPhone lists it")
    func passive() throws {
        var reply = PushNotification(title: "a", body: "b", data: ["type": "reply_finished"], collapseID: "c")
        reply.interruptionLevel = "passive"
        reply.sound = ""
        let message = try decoded(try FCMMessage(reply, badge: nil), token: "t").objectValue?["message"]?.objectValue
        let android = message?["android"]?.objectValue
        #expect(android?["priority"] == "normal")
        #expect(android?["notification"]?.objectValue?["notification_priority"] == "PRIORITY_MIN")
        let aps = message?["apns"]?.objectValue?["payload"]?.objectValue?["aps"]?.objectValue
        #expect(aps?["interruption-level"] == "passive" && aps?["sound"] == nil)
        let loud = try decoded(
            try FCMMessage(PushNotification(title: "a", body: "b", data: [:], collapseID: "c"), badge: nil), token: "t")
        #expect(loud.objectValue?["message"]?.objectValue?["android"]?.objectValue?["priority"] == "high")
    }

    @Test("a token JSON would escape is escaped, not spliced raw")
    func escapedToken() throws {
        let json = try decoded(
            try FCMMessage(PushNotification(title: "t", body: "b", data: [:], collapseID: "c"), badge: nil),
            token: #"odd"token\"#)
        #expect(json.objectValue?["message"]?.objectValue?["token"] == #"odd"token\"#)
        for token in ["tab\there", "line\u{0A}\u{1F}end", "é😀\u{7F}\u{2028}"] {
            let json = try decoded(
                try FCMMessage(PushNotification(title: "t", body: "b", data: [:], collapseID: "c"), badge: nil),
                token: token)
            #expect(json.objectValue?["message"]?.objectValue?["token"] == .string(token))
        }
    }

    @Test("the longest inputs fit what Apple's devices get through FCM, with room for FCM's own keys")
    func fits() throws {
        let notification = PushNotification(
            title: String(repeating: "\\", count: 200), body: String(repeating: "\u{02}\"😀", count: 3000),
            data: ["type": "reply_finished", "cwd": .string(String(repeating: "\u{01}", count: 1024))], collapseID: "c")
        let json = try decoded(try FCMMessage(notification, badge: nil), token: "t")
        let message = try #require(json.objectValue?["message"]?.objectValue)
        var payload = try #require(message["apns"]?.objectValue?["payload"]?.objectValue)
        for (key, value) in message["data"]?.objectValue ?? [:] { payload[key] = value }
        #expect(try JSONValue.object(payload).encodedData().count <= 4096 - FCMMessage.reservedForFCM)
        #expect(message["data"]?.objectValue?["type"] == "reply_finished")
        #expect(message["notification"]?.objectValue?["body"]?.stringValue?.hasSuffix("…") == true)
    }

    @Test("custom data that is not a string reaches FCM's data map as its JSON text; strings stay as they are")
    func typedDataAsStrings() throws {
        let notification = PushNotification(
            title: "t", body: "b",
            data: ["game_id": 42, "rated": true, "clock": ["moves": ["e4", 1]], "note": "x", "half": .number(0.5)],
            collapseID: "c")
        let json = try decoded(try FCMMessage(notification, badge: nil), token: "t")
        let data = json.objectValue?["message"]?.objectValue?["data"]?.objectValue
        #expect(
            data == [
                "game_id": "42", "rated": "true", "clock": #"{"moves":["e4",1]}"#, "note": "x", "half": "0.5",
            ])
    }
}
