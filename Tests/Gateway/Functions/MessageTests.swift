import Crypto
import Foundation
import PushgateCore
import PushgateMemory
import PushgateSealing
import PushgateTesting
import Testing

@testable import PushgateFunctions

/// Words a phone sends an agent unasked (issue 84): `sayToAgent` keeps them only when
/// signed by the installation's registered key for this agent, fresh, under an id not
/// taken by other words; `GET /replies` hands each over once and removes it, and a
/// waiting call is woken by one.
@Suite("Messages to an agent")
struct MessageTests {
    let cwd = "/srv/deploy"
    let phoneKey = P256.Signing.PrivateKey()

    func subscribed(_ fixture: FunctionsFixture, key: Bool = true, cwd: String? = nil) async throws {
        var body: [String: JSONValue] = [
            "cwd": .string(cwd ?? self.cwd), "installation_id": "phone",
            "apns_token": .string(FunctionsFixture.apnsToken(1)),
        ]
        if key { body["decision_key"] = .string(Base64URL.encode(phoneKey.publicKey.x963Representation)) }
        _ = try await fixture.register(body)
    }

    /// `sayToAgent`'s body as a phone signs it; `signedFor`: the agent the signature names.
    func body(
        _ fixture: FunctionsFixture, words: String = "Also run the linter.", id: String = "m-1",
        signedFor: String? = nil, signedAt: Int64? = nil, key: P256.Signing.PrivateKey? = nil
    ) throws -> [String: JSONValue] {
        let signedAt = signedAt ?? Int64(fixture.clock.now().timeIntervalSince1970)
        let signed = try SignedDecision.sign(
            with: key ?? phoneKey, serverKey: fixture.serverKey.hex, eventID: id, installationID: "phone",
            decision: .say, signedAt: signedAt, message: words, scope: AgentKey(cwd: signedFor ?? cwd).hex)
        return [
            "cwd": .string(cwd), "installation_id": "phone", "message_id": .string(id), "message": .string(words),
            "signed_at": .number(Double(signedAt)), "signature": .string(signed.signature),
        ]
    }

    func say(_ fixture: FunctionsFixture, waits: DecisionWaits, _ body: [String: JSONValue]) async throws
        -> SayToAgentFunction.Answer
    {
        try await SayToAgentFunction(store: fixture.store, waits: waits, now: fixture.clock.now)(
            secret: fixture.secret, SayToAgentRequest(fields: RequestFields(body)))
    }

    func replies(_ fixture: FunctionsFixture, waits: DecisionWaits, kind: String? = "message", wait: String? = nil)
        async throws -> RepliesAnswer
    {
        try await RepliesFunction(store: fixture.store, waits: waits)(
            secret: fixture.secret, RepliesRequest(cwd: cwd, kind: kind, wait: wait))
    }

    func refusal(_ call: () async throws -> some Any) async -> FunctionError? {
        do {
            _ = try await call()
            return nil
        } catch {
            return error as? FunctionError
        }
    }

    func unread(_ fixture: FunctionsFixture) async throws -> Int {
        try await fixture.store.count(
            in: NamespacePaths.messages(of: AgentKey(cwd: cwd), of: fixture.serverKey), upTo: 1000)
    }

    @Test("words signed for this agent are kept once, handed over once, with their proof")
    func keptAndHandedOver() async throws {
        let fixture = try FunctionsFixture()
        let waits = DecisionWaits(store: fixture.store, feed: nil, limitPerNamespace: 10)
        try await subscribed(fixture)
        let sent = try body(fixture, words: "Also run the linter.\nThen stop.")
        let answer = try await say(fixture, waits: waits, sent)
        #expect(answer.messageID == "m-1" && !answer.repeated)
        // A phone retrying after a lost answer: the same signed words, kept already.
        #expect(try await say(fixture, waits: waits, sent).repeated)
        let listed = try await replies(fixture, waits: waits)
        #expect(listed.replies.map(\.message) == ["Also run the linter.\nThen stop."])
        let reply = try #require(listed.replies.first)
        #expect(
            reply.kind == "message" && reply.decidedBy == "phone" && reply.signature == sent["signature"]?.stringValue)
        #expect(try await replies(fixture, waits: waits).replies.isEmpty)
        #expect(try await unread(fixture) == 0)
        // The answers alone do not list it either.
        _ = try await say(fixture, waits: waits, try body(fixture, id: "m-2"))
        #expect(try await replies(fixture, waits: waits, kind: "answer").replies.isEmpty)
        #expect(try await replies(fixture, waits: waits, kind: nil).replies.map(\.eventID) == ["m-2"])
    }

    @Test("words that are not this installation's for this agent are refused, and nothing is kept")
    func refused() async throws {
        let fixture = try FunctionsFixture()
        let waits = DecisionWaits(store: fixture.store, feed: nil, limitPerNamespace: 10)
        try await subscribed(fixture)
        let elsewhere = await refusal {
            try await say(fixture, waits: waits, try body(fixture, signedFor: "/srv/other"))
        }
        #expect(elsewhere?.reason == "bad_signature")
        let otherKey = await refusal {
            try await say(fixture, waits: waits, try body(fixture, key: P256.Signing.PrivateKey()))
        }
        #expect(otherKey?.reason == "bad_signature")
        let now = Int64(fixture.clock.now().timeIntervalSince1970)
        let stale = await refusal { try await say(fixture, waits: waits, try body(fixture, signedAt: now - 301)) }
        #expect(stale?.reason == "stale")
        var tampered = try body(fixture)
        tampered["message"] = "Delete everything."
        #expect(await refusal { try await say(fixture, waits: waits, tampered) }?.reason == "bad_signature")
        #expect(try await unread(fixture) == 0)
        _ = try await say(fixture, waits: waits, try body(fixture, words: "first"))
        let taken = await refusal { try await say(fixture, waits: waits, try body(fixture, words: "second")) }
        #expect(taken?.reason == "message_id_taken")
        #expect(try await replies(fixture, waits: waits).replies.map(\.message) == ["first"])
    }

    @Test("an installation not subscribed to the agent, or without a key, says nothing to it")
    func notSubscribed() async throws {
        let fixture = try FunctionsFixture()
        let waits = DecisionWaits(store: fixture.store, feed: nil, limitPerNamespace: 10)
        try await subscribed(fixture, cwd: "/srv/other")
        #expect(await refusal { try await say(fixture, waits: waits, try body(fixture)) }?.reason == "not_subscribed")
        try await subscribed(fixture, key: false)
        #expect(await refusal { try await say(fixture, waits: waits, try body(fixture)) }?.reason == "no_decision_key")
    }

    @Test("an agent keeps at most 100 unread messages: one more is 429")
    func unreadBounded() async throws {
        let fixture = try FunctionsFixture()
        let waits = DecisionWaits(store: fixture.store, feed: nil, limitPerNamespace: 10)
        try await subscribed(fixture)
        for index in 0..<SayToAgentFunction.maxUnread {
            _ = try await say(fixture, waits: waits, try body(fixture, id: "m-\(index)"))
        }
        let full = await refusal { try await say(fixture, waits: waits, try body(fixture, id: "one-more")) }
        #expect(full?.code == .resourceExhausted && full?.reason == "too_many_unread")
        let listed = try await replies(fixture, waits: waits)
        #expect(listed.replies.count == 100 && !listed.more)
        _ = try await say(fixture, waits: waits, try body(fixture, id: "one-more"))
    }

    @Test("a waiting GET /replies is woken by a message, and gives up at its time")
    func waitWoken() async throws {
        let fixture = try FunctionsFixture()
        let waits = DecisionWaits(store: fixture.store, feed: nil, limitPerNamespace: 10)
        try await subscribed(fixture)
        let started = ContinuousClock.now
        async let waited = replies(fixture, waits: waits, wait: "30")
        while waits.count == 0, started.duration(to: .now) < .seconds(10) {
            try await Task.sleep(for: .milliseconds(10))
        }
        _ = try await say(fixture, waits: waits, try body(fixture))
        #expect(try await waited.replies.map(\.eventID) == ["m-1"])
        #expect(started.duration(to: .now) < .seconds(10))
        let empty = try await replies(fixture, waits: waits, wait: "1")
        #expect(empty.replies.isEmpty && waits.count == 0)
    }

    @Test("the query: kind is answer or message, wait 0 to 60 s")
    func query() throws {
        #expect(throws: FunctionError.self) { try RepliesRequest(cwd: cwd, kind: "all") }
        #expect(throws: FunctionError.self) { try RepliesRequest(cwd: cwd, wait: "61") }
        #expect(throws: FunctionError.self) { try RepliesRequest(cwd: cwd, wait: "-1") }
        #expect(try RepliesRequest(cwd: cwd, kind: "message", wait: "60").wait == 60)
        #expect(try RepliesRequest(cwd: cwd).kinds == [.answer, .message])
    }
}
