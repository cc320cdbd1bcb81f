import Foundation
import PushgateClient
import Testing

@Suite("A push as the app reads it: its server by hashing the stored secrets, its chat, its banner, its badge")
struct NotificationRoutingTests {
    static let secrets = [
        "home": "pushgate-example-secret-0001-0123",
        "work": "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3JldA==",
    ]
    static let homeKey = "29ee24e33fa3ab951aa676ed4ef2bd4812fd5b23a32aac43ca4588f1953a73b7"

    /// A reply's push as APNs delivers it.
    static var apnsReply: [AnyHashable: Any] {
        [
            "aps": ["alert": ["title": "my-agent@home", "body": "All tests pass."], "sound": "default", "badge": 2],
            "type": "reply_finished", "server_key": homeKey, "cwd": "/root/projects/my-agent",
            "conversation_id": "conv-9",
        ]
    }

    @Test("a reply through APNs: its fields, its chat, its badge")
    func apnsReply() throws {
        let push = try #require(PushgateNotification(userInfo: Self.apnsReply))
        #expect(push.kind == .replyFinished && push.serverKey == Self.homeKey)
        #expect(push.cwd == "/root/projects/my-agent" && push.conversationID == "conv-9")
        #expect(push.title == "my-agent@home" && push.body == "All tests pass." && push.badge == 2)
        #expect(push.agentKey == PushgateKeys.agentKey(cwd: "/root/projects/my-agent"))
        #expect(
            NotificationRouting.destination(of: push, secrets: Self.secrets)
                == ChatLocation(serverID: "home", cwd: "/root/projects/my-agent"))
        #expect(NotificationRouting.badge(after: Self.apnsReply) == 2)
    }

    @Test("an approval through FCM (every data value text, FCM's own keys beside them)")
    func fcmApproval() throws {
        let userInfo: [AnyHashable: Any] = [
            "aps": ["alert": ["title": "Approval needed", "body": "my-agent: run rm?"], "badge": 1],
            "gcm.message_id": "1700000000", "google.c.a.e": "1",
            "type": "approval_requested", "server_key": Self.homeKey, "cwd": "/srv/a", "event_id": "e1",
            "coalesced_count": "3",
        ]
        let push = try #require(PushgateNotification(userInfo: userInfo))
        #expect(push.kind == .approvalRequested && push.eventID == "e1" && push.coalescedCount == 3)
        #expect(push.data["gcm.message_id"] == "1700000000")
    }

    @Test("the banner: shown unless its chat is on screen; never for a badge update")
    func banner() throws {
        let push = try #require(PushgateNotification(userInfo: Self.apnsReply))
        let sameChat = ChatLocation(serverID: "home", cwd: "/root/projects/my-agent")
        #expect(NotificationRouting.presentsBanner(push, secrets: Self.secrets, chatOnScreen: nil))
        #expect(!NotificationRouting.presentsBanner(push, secrets: Self.secrets, chatOnScreen: sameChat))
        #expect(
            NotificationRouting.presentsBanner(
                push, secrets: Self.secrets, chatOnScreen: ChatLocation(serverID: "work", cwd: sameChat.cwd)),
            "the same folder on another server is another chat")
        let update = try #require(
            PushgateNotification(userInfo: [
                "aps": ["badge": 0, "content-available": 1], "type": "badge_update", "server_key": Self.homeKey,
            ]))
        #expect(update.kind == .badgeUpdate && update.badge == 0)
        #expect(!NotificationRouting.presentsBanner(update, secrets: Self.secrets, chatOnScreen: nil))
        #expect(NotificationRouting.destination(of: update, secrets: Self.secrets) == nil)
    }

    @Test("a server the app does not hold leads nowhere; a push that is not Pushgate's is not read")
    func unknown() throws {
        var userInfo = Self.apnsReply
        userInfo["server_key"] = String(repeating: "0", count: 64)
        let push = try #require(PushgateNotification(userInfo: userInfo))
        #expect(NotificationRouting.destination(of: push, secrets: Self.secrets) == nil)
        #expect(NotificationRouting.presentsBanner(push, secrets: Self.secrets, chatOnScreen: nil))
        #expect(PushgateNotification(userInfo: ["aps": ["badge": 3]]) == nil)
        #expect(NotificationRouting.badge(after: ["aps": ["badge": 3]]) == 3, "APNs's own badge update")
        #expect(NotificationRouting.badge(after: ["aps": ["alert": "hi"]]) == nil)
        #expect(PushgateNotification(userInfo: ["server_key": 7, "aps": "nonsense"])?.badge == nil)
    }
}
