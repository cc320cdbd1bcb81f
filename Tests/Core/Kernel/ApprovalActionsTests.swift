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

        let plaintext = try JSONValue.parse(
            try SealedPlaintext.encode(decidable, badge: 1, maxBytes: SealedRecord.maxPlaintext, tag: "t0"))
        #expect(
            plaintext.objectValue?["actions"]
                == [["action": "allow", "title": "Allow"], ["action": "deny", "title": "Deny"]])
        #expect(plaintext.objectValue?["require_interaction"] == true)
        let plain = try JSONValue.parse(
            try SealedPlaintext.encode(Self.approval, badge: 1, maxBytes: SealedRecord.maxPlaintext, tag: "t0"))
        #expect(plain.objectValue?["actions"] == nil && plain.objectValue?["require_interaction"] == nil)
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
