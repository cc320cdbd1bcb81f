import Foundation
import PushgateAgentHooks
import PushgateAgentSide
import PushgateCore
import PushgateSealing
import Testing

/// The one wait for a person against gateways in process (issue 82): an honest one,
/// lying ones (its own key, another event's answer, a made-up `decided_by`), one that
/// answers at once, one that never answers.
@Suite("The wait for a person, against honest and lying gateways")
struct PersonWaitTests {
    let phone = FakePhone(installationID: "phone", name: "Ana's iPhone")

    /// Asks `question` on `gateway` (triggered as the agent's side does), lets `decide`
    /// run meanwhile, and answers how the wait ended.
    func wait(
        on gateway: FakeGateway, pins: borrowing ScratchPins, within seconds: Double = 10,
        _ kind: DecisionKind = .approval, decide: @escaping @Sendable (Question) async -> Void = { _ in }
    ) async throws -> WaitEnd {
        let question = Question.make(kind, prefix: "test")
        _ = try await gateway.trigger(
            GatewayCall(.triggerEvent, ["event_id": .string(question.eventID)]), timeout: .seconds(5))
        let deciding = Task { await decide(question) }
        defer { deciding.cancel() }
        return await PersonWait(gateway: gateway, pins: pins.file, callTimeout: .seconds(2))
            .answer(to: question, until: .now + .milliseconds(Int(seconds * 1000)))
    }

    @Test("an honest gateway: the paired phone's allow, signed for this question, is obeyed, named by the phone's name")
    func honestAllow() async throws {
        let gateway = FakeGateway()
        let pins = ScratchPins()
        try pins.pair(phone)
        let end = try await wait(on: gateway, pins: pins) { [phone] question in
            try? await Task.sleep(for: .milliseconds(200))
            gateway.decide(question.eventID, phone.decision(.allow, on: question.eventID, serverKey: gateway.serverKey))
        }
        #expect(end == .decided(PersonDecision(said: .allow, installationID: "phone", deviceName: "Ana's iPhone")))
        if case .decided(let decision) = end {
            #expect(decision.hookOutput == .allow)
            #expect(decision.who == "Ana's iPhone")
        }
        // One held call, not a poll.
        #expect(gateway.calls(of: .awaitDecision).count <= 2)
    }

    @Test("a deny without a reason names the phone; words answer a question")
    func denyAndWords() async throws {
        let gateway = FakeGateway()
        let pins = ScratchPins()
        try pins.pair(phone)
        let denied = try await wait(on: gateway, pins: pins) { [phone] question in
            gateway.decide(question.eventID, phone.decision(.deny, on: question.eventID, serverKey: gateway.serverKey))
        }
        guard case .decided(let decision) = denied else {
            Issue.record("\(denied)")
            return
        }
        #expect(decision.hookOutput == .deny(message: "Denied from Ana's iPhone"))
        let answered = try await wait(on: gateway, pins: pins, .answer) { [phone] question in
            gateway.decide(
                question.eventID,
                phone.decision(.answer, on: question.eventID, serverKey: gateway.serverKey, message: "Use staging"))
        }
        guard case .decided(let words) = answered else {
            Issue.record("\(answered)")
            return
        }
        #expect(words.hookOutput == .continueWith(words: "Use staging"))
    }

    @Test(
        "a secret holder's own installation, registered with its own key and signing correctly, is not paired: refused, naming it and pushgate pair"
    )
    func unpairedInstallation() async throws {
        let gateway = FakeGateway()
        let pins = ScratchPins()
        try pins.pair(phone)
        let evil = FakePhone(installationID: "evil")
        let end = try await wait(on: gateway, pins: pins) { question in
            gateway.decide(question.eventID, evil.decision(.allow, on: question.eventID, serverKey: gateway.serverKey))
        }
        guard case .refused(let reason) = end else {
            Issue.record("\(end)")
            return
        }
        #expect(
            reason.contains("evil") && reason.contains("not paired") && reason.contains("pushgate pair"), "\(reason)")
    }

    @Test("no pins at all: nobody's decision is obeyed (no trust on first use)")
    func nobodyPaired() async throws {
        let gateway = FakeGateway()
        let pins = ScratchPins()
        let end = try await wait(on: gateway, pins: pins) { [phone] question in
            gateway.decide(question.eventID, phone.decision(.allow, on: question.eventID, serverKey: gateway.serverKey))
        }
        guard case .refused(let reason) = end else {
            Issue.record("\(end)")
            return
        }
        #expect(reason.contains("not paired"), "\(reason)")
        #expect(try pins.file.read().isEmpty, "a decision pins nothing")
    }

    @Test("a lying gateway signs with its own key in the paired phone's name: refused")
    func lyingWithItsOwnKey() async throws {
        let impostor = FakePhone(installationID: "phone")
        let gateway = FakeGateway { eventID, _ in
            impostor.decision(
                .allow, on: eventID, serverKey: PushSecret("fake-gateway-secret-000000000000000001")!.serverKey)
        }
        let pins = ScratchPins()
        try pins.pair(phone)
        let end = try await wait(on: gateway, pins: pins)
        guard case .refused(let reason) = end else {
            Issue.record("\(end)")
            return
        }
        #expect(reason.contains("not signed for this question by the key paired"), "\(reason)")
    }

    @Test("a lying gateway hands another event's answer, truly signed by the paired phone: refused")
    func lyingWithAnotherEventsAnswer() async throws {
        let phone = self.phone
        let serverKey = PushSecret("fake-gateway-secret-000000000000000001")!.serverKey
        // "yes, go ahead", signed by the phone for another agent's question.
        let elsewhere = phone.decision(
            .answer, on: "mcp-another-agents-question", serverKey: serverKey, message: "yes, go ahead")
        let gateway = FakeGateway { _, _ in elsewhere }
        let pins = ScratchPins()
        try pins.pair(phone)
        for kind in [DecisionKind.answer, .approval] {
            let end = try await wait(on: gateway, pins: pins, kind)
            guard case .refused = end else {
                Issue.record("\(kind): \(end)")
                continue
            }
        }
    }

    @Test(
        "a lying gateway makes up decided_by (a paired id, no real signature) or a decision signed before the question: refused"
    )
    func lyingMadeUp() async throws {
        let pins = ScratchPins()
        try pins.pair(phone)
        let madeUp = FakeGateway { _, _ in
            AwaitedDecision(
                decided: true, decision: "allow", decidedBy: "phone", signedAt: Int64(Date().timeIntervalSince1970),
                signature: Base64URL.encode([UInt8](repeating: 7, count: 64)))
        }
        let end = try await wait(on: madeUp, pins: pins)
        guard case .refused = end else {
            Issue.record("\(end)")
            return
        }
        let phone = self.phone
        let old = FakeGateway { eventID, _ in
            phone.decision(
                .allow, on: eventID, serverKey: PushSecret("fake-gateway-secret-000000000000000001")!.serverKey,
                signedAt: Date().addingTimeInterval(-3600))
        }
        let early = try await wait(on: old, pins: pins)
        guard case .refused(let reason) = early else {
            Issue.record("\(early)")
            return
        }
        #expect(reason.contains("before this question was asked"), "\(reason)")
    }

    @Test("a gateway that answers at once is asked at most every 0.5 s, the pause growing; the deadline holds")
    func answersAtOnce() async throws {
        let gateway = FakeGateway(holding: .never)
        let pins = ScratchPins()
        try pins.pair(phone)
        let started = ContinuousClock.now
        let end = try await wait(on: gateway, pins: pins, within: 4)
        #expect(end == .noAnswer)
        let calls = gateway.calls(of: .awaitDecision)
        // 0.5 + 1 + 2 s of pauses fit in 4 s: at most 4 calls (a spin made thousands).
        #expect((2...5).contains(calls.count), "\(calls.count) calls")
        for (earlier, later) in zip(calls, calls.dropFirst()) {
            #expect(earlier.duration(to: later) >= .milliseconds(450), "calls \(earlier.duration(to: later)) apart")
        }
        #expect(started.duration(to: .now) < .seconds(6))
    }

    @Test("a gateway that never answers: the wait ends at its deadline")
    func neverAnswers() async throws {
        let gateway = FakeGateway(holding: .forever)
        let pins = ScratchPins()
        try pins.pair(phone)
        let started = ContinuousClock.now
        let end = try await wait(on: gateway, pins: pins, within: 2)
        #expect(end == .noAnswer)
        #expect(started.duration(to: .now) < .seconds(5), "\(started.duration(to: .now))")
    }

    @Test("a question whose asker gave up (an MCP client cancelled ask_user) is withdrawn: resolved cancelled")
    func cancelledQuestion() async throws {
        let gateway = FakeGateway()
        let pins = ScratchPins()
        let file = pins.file
        let asking = Task {
            await UserQuestion(gateway: gateway, pins: file, callTimeout: .seconds(2))
                .ask("Rotate the keys?", cwd: "/srv/a", wait: .seconds(60))
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while gateway.triggered.isEmpty, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        let asked = try #require(gateway.triggered.first, "the question was pushed")
        asking.cancel()
        let ending = await asking.value
        guard case .cancelled(let eventID) = ending else {
            Issue.record("the ask ended \(ending), not cancelled")
            return
        }
        #expect(eventID == asked)
        #expect(gateway.resolution(of: asked) == "cancelled")
    }

    @Test(
        "ask_user against liars: the gateway's own key, another event's words, a made-up decided_by, a secret holder's own installation — no words returned"
    )
    func askUserAgainstLiars() async throws {
        let serverKey = PushSecret("fake-gateway-secret-000000000000000001")!.serverKey
        let impostor = FakePhone(installationID: "phone")
        let stranger = FakePhone(installationID: "stranger", name: "Not yours")
        let elsewhere = phone.decision(
            .answer, on: "mcp-another-agents-question", serverKey: serverKey, message: "yes, go ahead")
        let lies: [(String, FakeGateway.Answers)] = [
            (
                "its own key",
                { eventID, _ in impostor.decision(.answer, on: eventID, serverKey: serverKey, message: "yes") }
            ),
            ("another event's words", { _, _ in elsewhere }),
            (
                "a made-up decided_by",
                { _, _ in
                    AwaitedDecision(
                        decided: true, decision: "answer", decidedBy: "phone",
                        signedAt: Int64(Date().timeIntervalSince1970),
                        signature: String(repeating: "A", count: 86), message: "yes")
                }
            ),
            (
                "a secret holder's installation",
                { eventID, _ in stranger.decision(.answer, on: eventID, serverKey: serverKey, message: "yes") }
            ),
        ]
        for (lie, answers) in lies {
            let gateway = FakeGateway(answers: answers)
            let pins = ScratchPins()
            try pins.pair(phone)
            let ending = await UserQuestion(gateway: gateway, pins: pins.file, callTimeout: .seconds(2))
                .ask("Wipe the staging database?", cwd: "/srv/a", wait: .seconds(5))
            guard case .refused = ending else {
                Issue.record("\(lie): \(ending)")
                continue
            }
        }
    }

    @Test("an event resolved without a decision ends the wait with its resolution")
    func resolved() async throws {
        let gateway = FakeGateway()
        let pins = ScratchPins()
        let end = try await wait(on: gateway, pins: pins) { question in
            _ = try? await gateway.resolve(question.eventID, as: .answeredElsewhere, timeout: .seconds(2))
        }
        #expect(end == .resolved(.answeredElsewhere))
    }
}
