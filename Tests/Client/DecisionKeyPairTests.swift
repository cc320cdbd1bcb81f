import Foundation
import PushgateClient
import PushgateSealing
import Testing

/// The app's decision key (issue 73): kept and read back, its public half what the
/// gateway registers, its signatures what the gateway and the hook check.
@Suite("The app's decision key and its answers")
struct DecisionKeyPairTests {
    @Test("kept in the store and read back the same; what it signs verifies against its public half")
    func keptAndSigning() throws {
        let key = DecisionKeyPair()
        let kept = try #require(DecisionKeyPair(stored: key.stored))
        #expect(kept.publicKey == key.publicKey)
        let published = try #require(DecisionKey(key.publicKey))
        let signed = try kept.sign(
            serverKey: "ab", eventID: "deploy-9", installationID: "phone", decision: .deny, signedAt: 1_800_000_000,
            message: "Not today")
        #expect(signed.isSigned(by: published))
        let tampered = SignedDecision(
            serverKey: "ab", eventID: "deploy-9", installationID: "phone", decision: .allow, signedAt: 1_800_000_000,
            message: "Not today", signature: signed.signature)
        #expect(!tampered.isSigned(by: published), "the decision is what is signed")
        for bad in ["", "software.", "software.!!", "enclave.AAAA", "other.AAAA", "software.AAAA"] {
            #expect(DecisionKeyPair(stored: bad) == nil, "\(bad)")
        }
    }

    @Test("a withdrawal is read as one: silent, leading nowhere, naming its event; an action is a decision or nothing")
    func withdrawalAndActions() throws {
        let userInfo: [AnyHashable: Any] = [
            "aps": ["badge": 0, "content-available": 1], "type": "event_resolved", "event_id": "deploy-9",
            "resolution": "allowed", "server_key": String(repeating: "ab", count: 32),
        ]
        let push = try #require(PushgateNotification(userInfo: userInfo))
        #expect(push.kind == .eventResolved && push.kind.isSilent && push.badge == 0)
        #expect(PushgateNotificationHandler.withdrawnEventID(push) == "deploy-9")
        #expect(NotificationRouting.destination(of: push, secrets: [:]) == nil)
        #expect(!NotificationRouting.presentsBanner(push, secrets: [:], chatOnScreen: nil))
        #expect(PushgateNotificationHandler.decision(forAction: "allow") == .allow)
        #expect(PushgateNotificationHandler.decision(forAction: "deny") == .deny)
        #expect(
            PushgateNotificationHandler.decision(forAction: "com.apple.UNNotificationDismissActionIdentifier") == nil)
    }
}
