import Foundation
import NIOConcurrencyHelpers
import PushgateAgentHooks
import PushgateAgentSide
import PushgateCore
import PushgateSealing
import Testing

/// A `PermissionRequest` asked of the phone (issue 82), against a gateway in process.
@Suite("A permission request asked of the phone")
struct PermissionRequestAskTests {
    let phone = FakePhone(installationID: "phone", name: "Pixel")

    func request(_ command: String) throws -> ClaudeHookEvent {
        let event: JSONValue = [
            "session_id": "0d1f5c6e-1111-2222-3333-444455556666", "cwd": "/srv/deploy",
            "hook_event_name": "PermissionRequest",
            "tool_name": "Bash", "tool_input": ["command": .string(command)],
        ]
        return try ClaudeHookEvent(json: try event.encodedBytes())
    }

    func ask(_ gateway: FakeGateway, _ pins: borrowing ScratchPins, wait: Duration = .seconds(10))
        -> PermissionRequestAsk
    {
        let folder = pins.folder.appendingPathComponent("pending").path
        return PermissionRequestAsk(
            gateway: gateway, pins: pins.file, pending: PendingApprovals(directory: folder), decisionWait: wait,
            callTimeout: .seconds(2))
    }

    /// Decides the next event `gateway` is triggered with, as `phone` would.
    func decideNext(
        on gateway: FakeGateway, skipping earlier: Int = 0, _ decision: @escaping @Sendable (String) -> AwaitedDecision
    )
        -> Task<Void, Never>
    {
        Task {
            for _ in 0..<500 {
                if let id = gateway.triggered.dropFirst(earlier).first {
                    gateway.decide(id, decision(id))
                    return
                }
                try? await Task.sleep(for: .milliseconds(10))
            }
        }
    }

    @Test(
        "AskUserQuestion (issue 84): a stranger's answer, an answer signed for another event, a made-up decided_by print nothing; the paired phone's answer prints the answers"
    )
    func choicesAgainstLiars() async throws {
        let asked: JSONValue = ["questions": [["question": "Which database?", "options": [["label": "SQLite"]]]]]
        let fields: [String: JSONValue] = [
            "session_id": "s1", "cwd": "/srv/deploy", "hook_event_name": "PermissionRequest",
            "tool_name": "AskUserQuestion", "tool_input": asked,
        ]
        let event = try ClaudeHookEvent(json: try JSONValue.object(fields).encodedBytes())
        let pins = ScratchPins()
        try pins.pair(phone)
        let stranger = FakePhone(installationID: "stranger")
        let words = #"{"Which database?": "SQLite"}"#
        let (phone, serverKey) = (self.phone, FakeGateway().serverKey)
        let strangers: @Sendable (String) -> AwaitedDecision = { id in
            stranger.decision(.answer, on: id, serverKey: serverKey, message: words)
        }
        let anotherEvents: @Sendable (String) -> AwaitedDecision = { _ in
            phone.decision(.answer, on: "another-event", serverKey: serverKey, message: words)
        }
        let madeUp: @Sendable (String) -> AwaitedDecision = { id in
            let real = stranger.decision(.answer, on: id, serverKey: serverKey, message: words)
            return AwaitedDecision(
                decided: true, decision: "answer", decidedBy: "phone", signedAt: real.signedAt,
                signature: real.signature, message: words)
        }
        let lies = [strangers, anotherEvents, madeUp]
        for lie in lies {
            let gateway = FakeGateway()
            let lying = decideNext(on: gateway, lie)
            let ending = await ask(gateway, pins, wait: .seconds(2)).run(event) { nil }
            await lying.value
            #expect(ending.output == nil, "\(ending.line)")
        }
        let gateway = FakeGateway()
        let honest = decideNext(on: gateway) { phone.decision(.answer, on: $0, serverKey: serverKey, message: words) }
        let answered = await ask(gateway, pins).run(event) { nil }
        await honest.value
        var input = asked.objectValue ?? [:]
        input["answers"] = ["Which database?": "SQLite"]
        #expect(answered.output == .answers(updatedInput: .object(input)), "\(answered.line)")
    }

    @Test("the same tool and input twice are two approvals with ids of their own; a decision answers only its own")
    func twoIdenticalRequests() async throws {
        let gateway = FakeGateway()
        let pins = ScratchPins()
        try pins.pair(phone)
        let (phone, serverKey) = (self.phone, gateway.serverKey)
        let first = decideNext(on: gateway) { phone.decision(.allow, on: $0, serverKey: serverKey) }
        let allowed = await ask(gateway, pins).run(try request("make deploy")) { nil }
        await first.value
        #expect(allowed.output == .allow, "\(allowed.line)")
        // The same request again: a new approval, which the first decision does not answer.
        let second = decideNext(on: gateway, skipping: 1) { phone.decision(.deny, on: $0, serverKey: serverKey) }
        let denied = await ask(gateway, pins).run(try request("make deploy")) { nil }
        await second.value
        #expect(denied.output == .deny(message: "Denied from Pixel"), "\(denied.line)")
        let ids = gateway.triggered
        #expect(ids.count == 2 && ids[0] != ids[1], "\(ids)")
        for id in ids {
            #expect(id.hasPrefix("claude-") && id.count == "claude-".count + 32, "128 random bits: \(id)")
        }
    }

    @Test("no decision in time: nothing printed, the approval resolved expired, the pending file gone")
    func noDecision() async throws {
        let gateway = FakeGateway()
        let pins = ScratchPins()
        try pins.pair(phone)
        let ending = await ask(gateway, pins, wait: .seconds(1)).run(try request("make clean")) { nil }
        #expect(ending.output == nil)
        #expect(ending.line.contains("no decision within 1 s: resolveEvent answered 200"), "\(ending.line)")
        let id = try #require(gateway.triggered.first)
        #expect(gateway.state.withLockedValue { $0.events[id]?.resolution } == "expired")
        let pending =
            (try? FileManager.default.contentsOfDirectory(atPath: pins.folder.appendingPathComponent("pending").path))
            ?? []
        #expect(pending.isEmpty, "\(pending)")
    }

    @Test(
        "a decision that wins the race against the expiry's resolution is obeyed: the resolution answered 409 already_decided"
    )
    func decisionWinsTheRace() async throws {
        let phone = self.phone
        let gateway = FakeGateway(holding: .never)
        let pins = ScratchPins()
        try pins.pair(phone)
        let serverKey = gateway.serverKey
        // The phone's allow lands between the wait's end and the hook's resolution.
        gateway.beforeResolve = { id in gateway.decide(id, phone.decision(.allow, on: id, serverKey: serverKey)) }
        let ending = await ask(gateway, pins, wait: .seconds(1)).run(try request("git push")) { nil }
        #expect(ending.output == .allow, "\(ending.line)")
        #expect(ending.line.contains("at the last moment"), "\(ending.line)")
        let id = try #require(gateway.triggered.first)
        #expect(gateway.state.withLockedValue { $0.events[id]?.resolution } == nil, "decided, never both")
    }

    @Test("a trigger refused (429) leaves nothing waited on; one with no answer is resolved, so nothing stays pending")
    func triggerFails() async throws {
        let pins = ScratchPins()
        try pins.pair(phone)
        let refusing = RefusingGateway(status: 429)
        let ending = await PermissionRequestAsk(
            gateway: refusing, pins: pins.file, pending: PendingApprovals(directory: pins.folder.path + "/pending"),
            decisionWait: .seconds(5), callTimeout: .seconds(1)
        ).run(try request("ls")) { nil }
        #expect(ending.output == nil && ending.line.contains("answered 429"), "\(ending.line)")
        #expect(refusing.resolved.withLockedValue { $0 }.isEmpty, "nothing was stored to resolve")
        let silent = RefusingGateway(status: nil)
        _ = await PermissionRequestAsk(
            gateway: silent, pins: pins.file, pending: PendingApprovals(directory: pins.folder.path + "/pending"),
            decisionWait: .seconds(5), callTimeout: .seconds(1)
        ).run(try request("ls")) { nil }
        #expect(
            silent.resolved.withLockedValue { $0 }.count == 1, "the approval the gateway may have stored is resolved")
    }
}
