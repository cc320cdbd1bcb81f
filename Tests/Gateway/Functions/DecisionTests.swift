import Crypto
import Foundation
import PushgateCore
import PushgateInstalledServices
import PushgateMemory
import PushgateSealing
import PushgateTesting
import Testing

@testable import PushgateDelivery
@testable import PushgateFunctions

/// Approvals answered from the phone (issue 73): a decision key registered like a
/// token, a decision signed by it taken once, checked against the key and the
/// recipients, kept with its proof, and handed to whoever waits for it.
@Suite("Decisions from the phone")
struct DecisionTests {
    let cwd = "/srv/deploy"
    let phoneKey = P256.Signing.PrivateKey()
    let tabletKey = P256.Signing.PrivateKey()

    func keyText(_ key: P256.Signing.PrivateKey) -> String {
        Base64URL.encode(key.publicKey.x963Representation)
    }

    /// A phone and a tablet with decision keys, an old phone without; one approval to all three.
    func approved(_ fixture: FunctionsFixture, worker: DeliveryWorker) async throws {
        for (id, token, key) in [
            ("phone", 1, keyText(phoneKey)), ("tablet", 2, keyText(tabletKey)), ("old-phone", 3, nil),
        ] {
            var body: [String: JSONValue] = [
                "cwd": .string(cwd), "installation_id": .string(id),
                "apns_token": .string(FunctionsFixture.apnsToken(token)),
            ]
            body["decision_key"] = key.map(JSONValue.string)
            _ = try await fixture.register(body)
        }
        _ = try await fixture.event(
            ["cwd": .string(cwd), "type": "approval_requested", "event_id": "deploy-42", "body": "Deploy?"],
            worker: worker)
        await worker.runningTriesFinished()
    }

    func decideFunction(_ fixture: FunctionsFixture, worker: DeliveryWorker, waits: DecisionWaits)
        -> DecideEventFunction
    {
        DecideEventFunction(
            store: fixture.store, outbox: fixture.outbox, worker: worker, waits: waits, now: fixture.clock.now)
    }

    /// `decideEvent` as a phone signs it.
    func decide(
        _ fixture: FunctionsFixture, worker: DeliveryWorker, waits: DecisionWaits, installation: String = "phone",
        key: P256.Signing.PrivateKey? = nil, decision: SignedDecision.Decision = .allow, message: String? = nil,
        signedAt: Int64? = nil
    ) async throws -> DecideEventAnswer {
        let signedAt = signedAt ?? Int64(fixture.clock.now().timeIntervalSince1970)
        let signed = try SignedDecision.sign(
            with: key ?? phoneKey, serverKey: fixture.serverKey.hex, eventID: "deploy-42",
            installationID: installation, decision: decision, signedAt: signedAt, message: message)
        var body: [String: JSONValue] = [
            "event_id": "deploy-42", "installation_id": .string(installation), "decision": .string(decision.rawValue),
            "signed_at": .number(Double(signedAt)), "signature": .string(signed.signature),
        ]
        body["message"] = message.map(JSONValue.string)
        return try await decideFunction(fixture, worker: worker, waits: waits)(
            secret: fixture.secret, DecideEventRequest(fields: RequestFields(body)))
    }

    func record(_ fixture: FunctionsFixture) async throws -> Document? {
        try await fixture.store.document(at: NamespacePaths.event("deploy-42", of: fixture.serverKey))
    }

    /// The error a call throws.
    func refusal(_ call: () async throws -> some Any) async -> FunctionError? {
        do {
            _ = try await call()
            return nil
        } catch {
            return error as? FunctionError
        }
    }

    @Test(
        "a decision key: stored as base64url, kept when absent, replaced and spread under every agent; refused when no P-256 point"
    )
    func registration() async throws {
        let fixture = try FunctionsFixture()
        func stored(_ cwd: String) async throws -> String? {
            try await fixture.store.document(at: fixture.device("phone", cwd: cwd))?.string(FieldName.decisionKey)
        }
        let base = ["installation_id": JSONValue.string("phone"), "apns_token": .string(FunctionsFixture.apnsToken(1))]
        _ = try await fixture.register(base.merging(["cwd": "/a", "decision_key": .string(keyText(phoneKey))]) { $1 })
        _ = try await fixture.register(base.merging(["cwd": "/b"]) { $1 })
        #expect(try await stored("/a") == keyText(phoneKey))
        _ = try await fixture.register(base.merging(["cwd": "/a"]) { $1 })
        #expect(try await stored("/a") == keyText(phoneKey), "absent: kept")
        _ = try await fixture.register(base.merging(["cwd": "/a", "decision_key": .string(keyText(tabletKey))]) { $1 })
        for cwd in ["/a", "/b"] { #expect(try await stored(cwd) == keyText(tabletKey), "\(cwd): spread like a token") }

        let before = try await fixture.store.allDocuments()
        let compressed = Base64URL.encode(phoneKey.publicKey.compressedRepresentation)
        for bad in [compressed, Base64URL.encode([4] + [UInt8](repeating: 1, count: 64)), "not base64!", ""] {
            let error = await refusal {
                try await fixture.register(base.merging(["cwd": "/a", "decision_key": .string(bad)]) { $1 })
            }
            #expect(error?.field == "decision_key", "\(bad)")
        }
        #expect(try await fixture.store.allDocuments() == before, "nothing stored")
    }

    @Test(
        "allow, signed by the phone's key: taken once, the approval resolved allowed, kept with its proof; the waiting hook gets it and can check it again"
    )
    func allowTaken() async throws {
        let fixture = try FunctionsFixture()
        let worker = fixture.worker()
        let waits = DecisionWaits(store: fixture.store, feed: nil, limitPerNamespace: 10)
        try await approved(fixture, worker: worker)
        let waiting = Task {
            try await AwaitDecisionFunction(store: fixture.store, waits: waits)(
                secret: fixture.secret,
                AwaitDecisionRequest(fields: RequestFields(["event_id": "deploy-42", "wait": 60])))
        }
        try await waitUntil("the wait is held", within: .seconds(10)) { waits.count == 1 }
        let answer = try await decide(fixture, worker: worker, waits: waits, message: "ship it")
        #expect(answer.decision == "allow" && answer.decidedBy == "phone")
        let awaited = try await waiting.value.json.objectValue
        #expect(awaited?["decided"] == true && awaited?["decision"] == "allow" && awaited?["message"] == "ship it")
        #expect(waits.count == 0, "the wait given back")

        // The proof, checked as the hook checks it: the key the gateway names signed it.
        let key = try #require(awaited?["decision_key"]?.stringValue.flatMap(DecisionKey.init))
        #expect(key.text == keyText(phoneKey))
        guard case .number(let signedAt)? = awaited?["signed_at"] else {
            Issue.record("no signed_at")
            return
        }
        let proof = SignedDecision(
            serverKey: fixture.serverKey.hex, eventID: "deploy-42", installationID: "phone", decision: .allow,
            signedAt: Int64(signedAt), message: "ship it", signature: try #require(awaited?["signature"]?.stringValue))
        #expect(proof.isSigned(by: key))

        let stored = try #require(try await record(fixture))
        #expect(stored.string(FieldName.resolution) == "allowed" && stored.string(FieldName.resolvedAt) != nil)
        #expect(stored.fields[FieldName.expiresAt] == nil, "resolved: nothing left for the expiry sweep")
        // The reminders withdrawn: two hours on, nobody is reminded.
        try await fixture.pass(2 * 3600, worker: worker)
        #expect(
            !fixture.provider.sends.contains { $0.notification.body.hasPrefix("Still waiting") },
            "the reminders withdrawn")
    }

    @Test(
        "refused, nothing changed: a forged or replayed signature, a phone that was not asked or has no key, an unknown event"
    )
    func refusals() async throws {
        let fixture = try FunctionsFixture()
        let worker = fixture.worker()
        let waits = DecisionWaits(store: fixture.store, feed: nil, limitPerNamespace: 10)
        try await approved(fixture, worker: worker)
        let before = try await fixture.store.allDocuments()
        let now = Int64(fixture.clock.now().timeIntervalSince1970)
        let cases: [(String, () async throws -> DecideEventAnswer, FunctionError.Code, String?)] = [
            (
                "another key", { try await decide(fixture, worker: worker, waits: waits, key: tabletKey) },
                .unauthenticated, "bad_signature"
            ),
            (
                "replayed", { try await decide(fixture, worker: worker, waits: waits, signedAt: now - 301) },
                .invalidArgument, "stale"
            ),
            (
                "from the future", { try await decide(fixture, worker: worker, waits: waits, signedAt: now + 301) },
                .invalidArgument, "stale"
            ),
            (
                "not asked", { try await decide(fixture, worker: worker, waits: waits, installation: "laptop") },
                .permissionDenied, "not_a_recipient"
            ),
            (
                "no key", { try await decide(fixture, worker: worker, waits: waits, installation: "old-phone") },
                .permissionDenied, "no_decision_key"
            ),
        ]
        for (name, call, code, reason) in cases {
            let error = await refusal(call)
            #expect(error?.code == code && error?.reason == reason, "\(name): \(String(describing: error))")
        }
        // A signature over another decision (allow signed, deny sent) is no signature.
        let signed = try SignedDecision.sign(
            with: phoneKey, serverKey: fixture.serverKey.hex, eventID: "deploy-42", installationID: "phone",
            decision: .allow, signedAt: now, message: nil)
        let tampered = await refusal {
            try await decideFunction(fixture, worker: worker, waits: waits)(
                secret: fixture.secret,
                DecideEventRequest(
                    fields: RequestFields([
                        "event_id": "deploy-42", "installation_id": "phone", "decision": "deny",
                        "signed_at": .number(Double(now)), "signature": .string(signed.signature),
                    ])))
        }
        #expect(tampered?.reason == "bad_signature")
        #expect(try await fixture.store.allDocuments() == before, "nothing changed")
    }

    @Test(
        "the first decision wins: a second phone's is 409 already_decided with the first; a resolved approval 409 already_resolved"
    )
    func firstWins() async throws {
        let fixture = try FunctionsFixture()
        let worker = fixture.worker()
        let waits = DecisionWaits(store: fixture.store, feed: nil, limitPerNamespace: 10)
        try await approved(fixture, worker: worker)
        // Both at once: exactly one is taken.
        async let phone = refusal { try await decide(fixture, worker: worker, waits: waits, decision: .deny) }
        async let tablet = refusal {
            try await decide(fixture, worker: worker, waits: waits, installation: "tablet", key: tabletKey)
        }
        let outcomes = await [phone, tablet]
        #expect(outcomes.filter { $0 == nil }.count == 1, "one taken: \(outcomes)")
        let late = try #require(outcomes.compactMap { $0 }.first)
        #expect(late.code == .aborted && late.reason == "already_decided")
        let first = try #require(try await record(fixture))
        #expect(late.details["decision"] == first.fields[FieldName.decision])
        #expect(late.details["decided_by"] == first.fields[FieldName.decidedBy])

        let other = try FunctionsFixture()
        let otherWorker = other.worker()
        try await approved(other, worker: otherWorker)
        _ = try await other.resolve(["event_id": "deploy-42", "resolution": "approved"], worker: otherWorker)
        let resolved = await refusal { try await decide(other, worker: otherWorker, waits: waits) }
        #expect(resolved?.reason == "already_resolved" && resolved?.details["resolution"] == "approved")
    }

    @Test(
        "decided or resolved, never both: a decision and a resolution at once, twenty times, one winner each; the loser's answer names the winner"
    )
    func oneWinner() async throws {
        for round in 0..<20 {
            let fixture = try FunctionsFixture()
            let worker = fixture.worker()
            let waits = DecisionWaits(store: fixture.store, feed: nil, limitPerNamespace: 10)
            try await approved(fixture, worker: worker)
            async let decided: Result<DecideEventAnswer, FunctionError> = {
                do { return .success(try await decide(fixture, worker: worker, waits: waits)) } catch {
                    return .failure(error as? FunctionError ?? .internal)
                }
            }()
            async let resolved: Result<ResolveEventAnswer, FunctionError> = {
                do {
                    return .success(
                        try await fixture.resolve(["event_id": "deploy-42", "resolution": "expired"], worker: worker))
                } catch {
                    return .failure(error as? FunctionError ?? .internal)
                }
            }()
            let (decision, resolution) = await (decided, resolved)
            let stored = try #require(try await record(fixture))
            switch (decision, resolution) {
            case (.success, .failure(let lost)):
                #expect(lost.code == .aborted && lost.reason == "already_decided", "round \(round): \(lost)")
                #expect(lost.details["decision"] == "allow" && stored.string(FieldName.resolution) == "allowed")
            case (.failure(let lost), .success(let answer)):
                #expect(!answer.alreadyResolved, "round \(round)")
                #expect(lost.code == .aborted && lost.reason == "already_resolved", "round \(round): \(lost)")
                #expect(lost.details["resolution"] == "expired" && stored.fields[FieldName.decision] == nil)
            default:
                Issue.record("round \(round): not one winner: \(decision) \(resolution)")
            }
            // Resolving again changes nothing, and says what stands.
            let again = await refusal {
                try await fixture.resolve(["event_id": "deploy-42", "resolution": "cancelled"], worker: worker)
            }
            if case .success = decision {
                #expect(again?.reason == "already_decided")
            } else {
                #expect(again == nil)
            }
        }
    }

    /// `awaitDecision` for deploy-42 through `waits`, held up to `wait` seconds.
    func awaitDecision(_ fixture: FunctionsFixture, waits: DecisionWaits, wait: Int) async throws -> JSONValue {
        try await AwaitDecisionFunction(store: fixture.store, waits: waits)(
            secret: fixture.secret,
            AwaitDecisionRequest(fields: RequestFields(["event_id": "deploy-42", "wait": .number(Double(wait))]))
        )
        .json
    }

    @Test(
        "a wait: answered at once when nothing waits, at its end when nothing comes, by another process's decision heard on the change feed; bounded per namespace"
    )
    func waits() async throws {
        let fixture = try FunctionsFixture()
        let worker = fixture.worker()
        try await approved(fixture, worker: worker)
        // Two processes on one database: only the feed can wake this one's waits (it never polls in a test's time).
        let feed = InProcessChangeFeed()
        let here = DecisionWaits(store: fixture.store, feed: feed, limitPerNamespace: 2, pollInterval: .seconds(3600))
        let there = DecisionWaits(store: fixture.store, feed: feed, limitPerNamespace: 2)
        func call(_ wait: Int) async throws -> JSONValue { try await awaitDecision(fixture, waits: here, wait: wait) }
        #expect(try await call(0) == ["decided": false])
        let started = ContinuousClock.now
        #expect(try await call(1) == ["decided": false])
        #expect(ContinuousClock.now - started >= .seconds(1))

        // Held here; decided through another process's functions (its own waits).
        let held = Task { try await call(60) }
        try await waitUntil("the wait is held", within: .seconds(10)) { here.count == 1 }
        let second = Task { try await call(60) }
        try await waitUntil("two waits held", within: .seconds(10)) { here.count == 2 }
        let over = await refusal { try await call(60) }
        #expect(over?.code == .resourceExhausted, "the namespace's third wait")
        second.cancel()
        try await waitUntil("a cancelled wait is given back", within: .seconds(10)) { here.count == 1 }

        #expect(feed.listening == 1, "one listener while waits are held")
        _ = try await decide(fixture, worker: worker, waits: there, decision: .deny, message: "not today")
        let answer = try await held.value
        #expect(answer.objectValue?["decision"] == "deny" && answer.objectValue?["message"] == "not today")
        try await waitUntil("no listener once no wait is held", within: .seconds(10)) { feed.listening == 0 }
    }

    @Test("a wait longer than the gateway holds one (PUSHGATE_MAX_DECISION_WAIT) ends at the gateway's longest")
    func longestWait() async throws {
        let fixture = try FunctionsFixture()
        try await approved(fixture, worker: fixture.worker())
        let waits = DecisionWaits(store: fixture.store, feed: nil, limitPerNamespace: 2)
        let started = ContinuousClock.now
        let answer = try await AwaitDecisionFunction(store: fixture.store, waits: waits, longestWait: .seconds(1))(
            secret: fixture.secret, AwaitDecisionRequest(fields: RequestFields(["event_id": "deploy-42", "wait": 300])))
        #expect(answer.json == ["decided": false])
        let took = ContinuousClock.now - started
        #expect(took >= .seconds(1) && took < .seconds(60), "held \(took)")
    }

    @Test(
        "a resolution elsewhere (answered at the terminal) wakes the wait through the feed; with no feed, the poll finds a decision"
    )
    func resolvedElsewhereAndPolled() async throws {
        let fixture = try FunctionsFixture()
        let worker = fixture.worker()
        try await approved(fixture, worker: worker)
        let feed = InProcessChangeFeed()
        let here = DecisionWaits(store: fixture.store, feed: feed, limitPerNamespace: 2, pollInterval: .seconds(3600))
        let there = DecisionWaits(store: fixture.store, feed: feed, limitPerNamespace: 2)
        let held = Task { try await awaitDecision(fixture, waits: here, wait: 60) }
        try await waitUntil("the wait is held", within: .seconds(10)) { here.count == 1 }
        _ = try await fixture.resolve(["event_id": "deploy-42", "resolution": "answered_elsewhere"], waits: there)
        #expect(try await held.value == ["decided": false, "resolution": "answered_elsewhere"])

        // A SQLite file's second process: no feed, the poll reads the waited records.
        let other = try FunctionsFixture()
        let otherWorker = other.worker()
        try await approved(other, worker: otherWorker)
        let polling = DecisionWaits(
            store: other.store, feed: nil, limitPerNamespace: 2, pollInterval: .milliseconds(100))
        let polled = Task { try await awaitDecision(other, waits: polling, wait: 60) }
        try await waitUntil("the polled wait is held", within: .seconds(10)) { polling.count == 1 }
        let elsewhere = DecisionWaits(store: other.store, feed: nil, limitPerNamespace: 2)
        _ = try await decide(other, worker: otherWorker, waits: elsewhere)
        #expect(try await polled.value.objectValue?["decision"] == "allow")
    }

    @Test("diagnostics mark a device that can decide, with its name and its key's fingerprint, never its key")
    func diagnosticsMark() async throws {
        let fixture = try FunctionsFixture()
        _ = try await fixture.register([
            "cwd": .string(cwd), "installation_id": "phone", "apns_token": .string(FunctionsFixture.apnsToken(1)),
            "decision_key": .string(keyText(phoneKey)), "device_name": "Ana's iPhone",
        ])
        let function = DiagnosticsFunction(
            store: fixture.store, outbox: fixture.outbox, formats: .installed, now: fixture.clock.now)
        let answer = try await function(
            secret: fixture.secret,
            DiagnosticsRequest(installationID: nil, agentKey: AgentKey(cwd: cwd).hex, pageSize: nil, pageToken: nil))
        let text = String(decoding: try answer.encodedData(), as: UTF8.self)
        #expect(text.contains(#""can_decide":true"#), "\(text)")
        #expect(!text.contains(keyText(phoneKey)))
        let fingerprint = try #require(DecisionKey(keyText(phoneKey))?.fingerprint)
        #expect(text.contains(#""decision_key_fingerprint":"\#(fingerprint)""#), "\(text)")
        #expect(text.contains(#""device_name":"Ana's iPhone""#), "\(text)")
    }
}
