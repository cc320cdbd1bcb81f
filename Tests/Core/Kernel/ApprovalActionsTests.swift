import Crypto
import Foundation
import NIOCore
import PushgateAPNs
import PushgateCore
import PushgateFCM
import PushgateProviderKit
import PushgateSealing
import Testing

/// An approval's push to a phone that can decide it (issue 73): the category its app
/// registered Allow and Deny under, in clear even when the rest is sealed; a phone
/// without a decision key gets today's push.
@Suite("Approval actions")
struct ApprovalActionsTests {
    let actions = ApprovalActions(category: "EXAMPLE_APPROVAL", replyCategory: "EXAMPLE_REPLY")

    static let approval = PushNotification(
        title: "Approval needed", body: "builder: Deploy?",
        data: ["type": "approval_requested", "event_id": "deploy-42", "server_key": "5e", "cwd": "/srv/b"],
        collapseID: String(repeating: "ab", count: 32), showsBadge: true)

    func target(_ id: String, decides: Bool, sealing: PayloadSealing? = nil) -> DeliveryTarget {
        DeliveryTarget(
            installationID: id, token: DeviceToken(kind: .apns, value: String(repeating: "a", count: 64)),
            route: DeliveryRoute(app: "com.example.app", sealing: sealing, decides: decides), badge: 1)
    }

    func apns(_ notification: PushNotification, _ targets: [DeliveryTarget]) throws -> [[String: JSONValue]] {
        try PushSealing(title: "Agent news", body: "Open to read").payloads(
            notification, to: targets, maxBytes: AlertPayload.maxBytes, actions: actions,
            measure: { try AlertPayload.encode($0, badge: $1).count }, build: { try AlertPayload.encode($0, badge: $1) }
        ).map { try #require(try JSONValue.parse($0).objectValue?["aps"]?.objectValue) }
    }

    @Test(
        "APNs: aps.category for a phone with a decision key, in clear when sealed; none without a key, none on a reply")
    func apnsCategory() throws {
        let receiver = P256.KeyAgreement.PrivateKey()
        let keys = try PayloadKeys(
            p256dh: Base64URL.encode(receiver.publicKey.x963Representation), auth: Base64URL.encode(Data(count: 16)))
        let aps = try apns(
            Self.approval,
            [
                target("decides", decides: true), target("old", decides: false),
                target("sealed", decides: true, sealing: .sealed(keys)),
            ])
        #expect(aps[0]["category"] == "EXAMPLE_APPROVAL")
        #expect(aps[1]["category"] == nil, "a phone without a decision key: today's push")
        #expect(
            aps[2]["category"] == "EXAMPLE_APPROVAL"
                && aps[2]["alert"] == ["title": "Agent news", "body": "Open to read"])
        var reply = Self.approval
        reply.data["type"] = "reply_finished"
        #expect(try apns(reply, [target("decides", decides: true)])[0]["category"] == nil, "a reply nobody answers")
        // An answerable reply (issue 74): the text input's category, sealed or not.
        reply.data["answerable"] = true
        let answerable = try apns(
            reply, [target("decides", decides: true), target("sealed", decides: true, sealing: .sealed(keys))])
        #expect(answerable.map { $0["category"] } == ["EXAMPLE_REPLY", "EXAMPLE_REPLY"])
        var noID = Self.approval
        noID.data["event_id"] = nil
        #expect(try apns(noID, [target("decides", decides: true)])[0]["category"] == nil, "no id: nothing to decide")
    }

    @Test("FCM: data.category and data.actions, and aps.category forwarded; Web Push: actions and require_interaction")
    func fcmAndWebPush() throws {
        var decidable = Self.approval
        decidable.category = actions.category
        decidable.offeredDecision = .approval
        let message = try JSONValue.parse(
            Array(FCMMessage.bodies([(try FCMMessage(decidable, badge: 1), "t")])[0].readableBytesView))
        let data = try #require(message.objectValue?["message"]?.objectValue?["data"]?.objectValue)
        #expect(
            data["category"] == "EXAMPLE_APPROVAL" && data["actions"] == "allow,deny" && data["event_id"] == "deploy-42"
        )
        let aps = message.objectValue?["message"]?.objectValue?["apns"]?.objectValue?["payload"]?.objectValue?["aps"]
        #expect(aps?.objectValue?["category"] == "EXAMPLE_APPROVAL")

        try expectBrowserButtons(decidable)
        let plain = try JSONValue.parse(
            try SealedPlaintext.encode(Self.approval, badge: 1, maxBytes: SealedRecord.maxPlaintext, tag: "t0"))
        #expect(plain.objectValue?["actions"] == nil && plain.objectValue?["require_interaction"] == nil)
    }

    @Test(
        "an approval that offers \"always allow\" (issue 84): its own APNs category, FCM's three actions, a browser's two"
    )
    func always() throws {
        var always = Self.approval
        always.data["allow_always"] = "Always allow Bash(npm test:*) in this project"
        #expect(always.decisionKind == .approvalWithAlways)
        let actions = ApprovalActions(
            category: "EXAMPLE_APPROVAL", alwaysCategory: "EXAMPLE_ALWAYS", replyCategory: "EXAMPLE_REPLY")
        let aps = try PushSealing(title: "Agent news", body: "Open to read").payloads(
            always, to: [target("decides", decides: true)], maxBytes: AlertPayload.maxBytes, actions: actions,
            measure: { try AlertPayload.encode($0, badge: $1).count }, build: { try AlertPayload.encode($0, badge: $1) }
        ).map { try #require(try JSONValue.parse($0).objectValue) }
        #expect(aps[0]["aps"]?.objectValue?["category"] == "EXAMPLE_ALWAYS")
        #expect(aps[0]["allow_always"] == "Always allow Bash(npm test:*) in this project")
        var decidable = always
        decidable.category = actions.alwaysCategory
        decidable.offeredDecision = .approvalWithAlways
        let message = try JSONValue.parse(
            Array(FCMMessage.bodies([(try FCMMessage(decidable, badge: 1), "t")])[0].readableBytesView))
        let data = try #require(message.objectValue?["message"]?.objectValue?["data"]?.objectValue)
        #expect(data["actions"] == "allow,allow_always,deny" && data["category"] == "EXAMPLE_ALWAYS")
        try expectBrowserButtons(decidable)
    }

    /// A browser's Allow and Deny (the two buttons it shows), held until answered.
    func expectBrowserButtons(_ decidable: PushNotification) throws {
        let plaintext = try JSONValue.parse(
            try SealedPlaintext.encode(decidable, badge: 1, maxBytes: SealedRecord.maxPlaintext, tag: "t0"))
        #expect(
            plaintext.objectValue?["actions"]
                == [["action": "allow", "title": "Allow"], ["action": "deny", "title": "Deny"]])
        #expect(plaintext.objectValue?["require_interaction"] == true)
    }

    /// An FCM device's targets: an Android phone with a decision key, an iPhone with an
    /// FCM token and one, an Android phone without one, a sealed Android phone.
    func fcmTargets(_ keys: PayloadKeys) -> [DeliveryTarget] {
        [("android", true, "android"), ("iphone", true, "ios"), ("old", false, "android"), ("sealed", true, "android")]
            .map { id, decides, platform in
                DeliveryTarget(
                    installationID: id, token: DeviceToken(kind: .fcm, value: "fcm-" + id),
                    route: DeliveryRoute(
                        app: "com.example.app", sealing: id == "sealed" ? .sealed(keys) : nil, decides: decides,
                        drawsItsOwn: decides && platform == "android"),
                    badge: 2)
            }
    }

    @Test(
        "Android (issue 83): what it can answer goes data-only at high priority, title, body, event id, category and actions as strings; an iPhone on FCM keeps aps.category"
    )
    func androidDrawsItsOwn() throws {
        let receiver = P256.KeyAgreement.PrivateKey()
        let keys = try PayloadKeys(
            p256dh: Base64URL.encode(receiver.publicKey.x963Representation), auth: Base64URL.encode(Data(count: 16)))
        let targets = fcmTargets(keys)
        let messages = try PushSealing(title: "Agent news", body: "Open to read").payloads(
            Self.approval, to: targets, maxBytes: FCMMessage.maxForwardedBytes, actions: actions,
            measure: FCMMessage.forwardedBytes, build: FCMMessage.init)
        let bodies = FCMMessage.bodies(zip(messages, targets).map { ($0, $1.token.value) })
        let sent = try bodies.map { try #require(JSONValue.parse(Array($0.readableBytesView)).objectValue?["message"]) }

        #expect(
            sent[0]
                == [
                    "data": [
                        "type": "approval_requested", "event_id": "deploy-42", "server_key": "5e", "cwd": "/srv/b",
                        "title": "Approval needed", "body": "builder: Deploy?", "category": "EXAMPLE_APPROVAL",
                        "actions": "allow,deny", "badge": "2",
                    ],
                    "android": ["collapse_key": .string(Self.approval.collapseID), "priority": "high"],
                    "token": "fcm-android",
                ])
        // An iPhone registered with an FCM token: today's message, the category under aps.
        let iphone = try #require(sent[1].objectValue)
        #expect(iphone["notification"] != nil)
        #expect(
            iphone["apns"]?.objectValue?["payload"]?.objectValue?["aps"]?.objectValue?["category"]
                == "EXAMPLE_APPROVAL")
        // An Android phone that cannot decide: today's notification message, no actions.
        let old = try #require(sent[2].objectValue)
        #expect(old["notification"] != nil && old["data"]?.objectValue?["actions"] == nil)
        // Sealed: data-only still, the neutral text shown, the record beside it.
        let sealed = try #require(sent[3].objectValue)
        let data = try #require(sealed["data"]?.objectValue)
        #expect(sealed["notification"] == nil && sealed["apns"] == nil)
        #expect(data["title"] == "Agent news" && data["body"] == "Open to read" && data["actions"] == "allow,deny")
        #expect(data["encrypted"]?.stringValue?.isEmpty == false)
        #expect(data.values.allSatisfy { $0.stringValue != nil }, "FCM's data holds strings only")

        // In quiet hours (a passive push) it wakes nothing: normal priority.
        var quiet = Self.approval
        quiet.interruptionLevel = "passive"
        let quietMessage = try PushSealing(title: "Agent news", body: "Open to read").payloads(
            quiet, to: [targets[0]], maxBytes: FCMMessage.maxForwardedBytes, actions: actions,
            measure: FCMMessage.forwardedBytes, build: FCMMessage.init)
        let quietSent = try JSONValue.parse(
            Array(FCMMessage.bodies([(quietMessage[0], "t")])[0].readableBytesView))
        #expect(quietSent.objectValue?["message"]?.objectValue?["android"]?.objectValue?["priority"] == "normal")
    }

    @Test("a question: FCM's one action is answer; Web Push's is a text box, and it stays until answered")
    func answerInWords() throws {
        var question = Self.approval
        question.data["type"] = "question_asked"
        question.data["answerable"] = true
        #expect(question.decisionKind == .answer)
        question.category = actions.replyCategory
        question.offeredDecision = .answer
        let message = try JSONValue.parse(
            Array(FCMMessage.bodies([(try FCMMessage(question, badge: nil), "t")])[0].readableBytesView))
        let data = try #require(message.objectValue?["message"]?.objectValue?["data"]?.objectValue)
        #expect(data["category"] == "EXAMPLE_REPLY" && data["actions"] == "answer" && data["answerable"] == "true")
        let plaintext = try JSONValue.parse(
            try SealedPlaintext.encode(question, badge: nil, maxBytes: SealedRecord.maxPlaintext, tag: "t0"))
        #expect(
            plaintext.objectValue?["actions"]
                == [["action": "answer", "title": "Reply", "type": "text", "placeholder": "Answer the agent"]])
        #expect(plaintext.objectValue?["require_interaction"] == true)
        // An answerable reply does not hold the screen.
        question.data["type"] = "reply_finished"
        let reply = try JSONValue.parse(
            try SealedPlaintext.encode(question, badge: nil, maxBytes: SealedRecord.maxPlaintext, tag: "t0"))
        #expect(reply.objectValue?["require_interaction"] == nil && reply.objectValue?["actions"] != nil)
    }
}
