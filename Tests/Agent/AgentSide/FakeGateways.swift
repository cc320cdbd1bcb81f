import Crypto
import Foundation
import NIOConcurrencyHelpers
import PushgateAgentHooks
import PushgateAgentSide
import PushgateCore
import PushgateSealing

/// A phone: its installation, its decision key, its name.
struct FakePhone: Sendable {
    let installationID: String
    let key = P256.Signing.PrivateKey()
    var name: String? = nil

    var decisionKey: DecisionKey { DecisionKey(Base64URL.encode(key.publicKey.x963Representation))! }

    /// Its decision on `eventID` of `serverKey`, signed, as `awaitDecision` hands it over.
    func decision(
        _ decision: SignedDecision.Decision, on eventID: String, serverKey: ServerKey, message: String? = nil,
        signedAt: Date = Date()
    ) -> AwaitedDecision {
        let signed = try! SignedDecision.sign(
            with: key, serverKey: serverKey.hex, eventID: eventID, installationID: installationID, decision: decision,
            signedAt: Int64(signedAt.timeIntervalSince1970), message: message)
        return AwaitedDecision(
            decided: true, decision: decision.rawValue, decidedBy: installationID, signedAt: signed.signedAt,
            signature: signed.signature, message: message)
    }

    /// Its completion of a pairing with `code`.
    func completion(of pairingID: String, code: PairingCode, serverKey: ServerKey, signedAt: Date = Date())
        -> PairingCompletions.Completion
    {
        let signed = try! SignedPairing.sign(
            code: code, serverKey: serverKey.hex, pairingID: pairingID, installationID: installationID,
            signedAt: Int64(signedAt.timeIntervalSince1970)
        ) { try key.signature(for: $0).rawRepresentation }
        return PairingCompletions.Completion(
            installationID: installationID, deviceName: name, decisionKey: decisionKey.text,
            signedAt: signed.signedAt, signature: signed.signature)
    }
}

/// A gateway in process: it keeps what was triggered, answers `awaitDecision` from
/// what `answers` says of an event (honest, or lying as a test makes it), settles an
/// event once (decided or resolved), and keeps pairings. Every call is counted.
final class FakeGateway: AgentGateway, @unchecked Sendable {
    let baseURL = "https://push.example.test"
    let serverKey = PushSecret("fake-gateway-secret-000000000000000001")!.serverKey

    /// What the gateway answers for an event: its state, or a lie.
    typealias Answers = @Sendable (_ eventID: String, _ state: EventState) -> AwaitedDecision

    struct EventState: Sendable {
        var body: [String: JSONValue]
        var decision: AwaitedDecision?
        var resolution: String?
    }

    struct State {
        var events: [String: EventState] = [:]
        var order: [String] = []
        var calls: [(GatewayFunction, ContinuousClock.Instant)] = []
        var pairings: [String: [PairingCompletions.Completion]] = [:]
    }

    enum Holding: Sendable {
        /// Holds `awaitDecision` until something changes or its wait ends.
        case honestly
        /// Answers at once what it knows, whatever the wait.
        case never
        /// Never answers at all.
        case forever
    }

    let state = NIOLockedValueBox(State())
    let holding: Holding
    let answers: Answers
    /// Devices subscribed, as a trigger answers.
    var deviceCount = 1
    /// Runs as a resolution comes, before it is taken: a decision that wins the race.
    var beforeResolve: (@Sendable (String) -> Void)?

    init(holding: Holding = .honestly, answers: @escaping Answers = { _, state in FakeGateway.honest(state) }) {
        self.holding = holding
        self.answers = answers
    }

    static func honest(_ state: EventState) -> AwaitedDecision {
        state.decision ?? AwaitedDecision(decided: false, resolution: state.resolution)
    }

    /// The events triggered, in order.
    var triggered: [String] { state.withLockedValue { $0.order } }

    /// How `eventID` was resolved, if it was.
    func resolution(of eventID: String) -> String? {
        state.withLockedValue { $0.events[eventID]?.resolution }
    }

    func calls(of function: GatewayFunction) -> [ContinuousClock.Instant] {
        state.withLockedValue { $0.calls.filter { $0.0 == function }.map(\.1) }
    }

    /// A phone decides: taken when the event is not settled.
    @discardableResult
    func decide(_ eventID: String, _ decision: AwaitedDecision) -> Bool {
        state.withLockedValue { state in
            guard var event = state.events[eventID], event.decision == nil, event.resolution == nil else {
                return false
            }
            event.decision = decision
            state.events[eventID] = event
            return true
        }
    }

    func complete(_ pairingID: String, with completion: PairingCompletions.Completion) {
        state.withLockedValue { $0.pairings[pairingID, default: []].append(completion) }
    }

    func post(_ function: GatewayFunction, _ body: [String: JSONValue], timeout: Duration) async throws
        -> GatewayReply
    {
        state.withLockedValue { $0.calls.append((function, .now)) }
        switch function {
        case .triggerEvent, .triggerReplyFinished:
            let id = body["event_id"]?.stringValue ?? "gateway-made"
            state.withLockedValue { state in
                state.events[id] = EventState(body: body)
                state.order.append(id)
            }
            return Self.reply(["event_id": .string(id), "device_count": .number(Double(deviceCount))])
        case .resolveEvent:
            return resolve(body["event_id"]?.stringValue ?? "", as: body["resolution"]?.stringValue ?? "resolved")
        case .awaitDecision:
            return try await awaitDecision(body["event_id"]?.stringValue ?? "", wait: body["wait"], timeout: timeout)
        case .startPairing:
            let id = String(repeating: "7", count: 32)
            state.withLockedValue { $0.pairings[id] = [] }
            return Self.reply(["pairing_id": .string(id), "expires_at": "2026-11-29T10:00:00Z"])
        case .awaitPairing:
            return try await awaitPairing(body)
        case .completePairing, .diagnostics, .replies, .sayToAgent:
            return GatewayReply(status: 404, body: [])
        }
    }

    func get(_ function: GatewayFunction, query: [String: String], timeout: Duration) async throws -> GatewayReply {
        GatewayReply(status: 404, body: [])
    }

    private func resolve(_ eventID: String, as resolution: String) -> GatewayReply {
        beforeResolve?(eventID)
        return state.withLockedValue { state in
            guard var event = state.events[eventID] else { return Self.refusal(404, "NOT_FOUND", nil) }
            if event.decision != nil { return Self.refusal(409, "ABORTED", "already_decided") }
            if let stood = event.resolution {
                return Self.reply(["resolution": .string(stood), "already_resolved": true])
            }
            event.resolution = resolution
            state.events[eventID] = event
            return Self.reply(["resolution": .string(resolution), "already_resolved": false])
        }
    }

    private func awaitDecision(_ eventID: String, wait: JSONValue?, timeout: Duration) async throws -> GatewayReply {
        var seconds = 0.0
        if case .number(let number)? = wait { seconds = number }
        switch holding {
        case .forever:
            try await Task.sleep(for: timeout)
            throw GatewayUnreachable(description: "did not answer within \(timeout)")
        case .never:
            guard let event = state.withLockedValue({ $0.events[eventID] }) else {
                return Self.refusal(404, "NOT_FOUND", nil)
            }
            return try Self.encoded(answers(eventID, event))
        case .honestly:
            let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
            while true {
                guard let event = state.withLockedValue({ $0.events[eventID] }) else {
                    return Self.refusal(404, "NOT_FOUND", nil)
                }
                let answer = answers(eventID, event)
                if answer.decided || answer.resolution != nil || ContinuousClock.now >= deadline {
                    return try Self.encoded(answer)
                }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
    }

    private func awaitPairing(_ body: [String: JSONValue]) async throws -> GatewayReply {
        let id = body["pairing_id"]?.stringValue ?? ""
        var seen = 0
        if case .number(let number)? = body["seen"] { seen = Int(number) }
        var wait = 0.0
        if case .number(let number)? = body["wait"] { wait = number }
        let deadline = ContinuousClock.now + .milliseconds(Int(wait * 1000))
        while true {
            guard let completions = state.withLockedValue({ $0.pairings[id] }) else {
                return Self.refusal(404, "NOT_FOUND", "unknown_pairing")
            }
            if completions.count > seen || ContinuousClock.now >= deadline {
                let list = completions.map { completion -> JSONValue in
                    var object: [String: JSONValue] = [
                        "installation_id": .string(completion.installationID),
                        "decision_key": .string(completion.decisionKey),
                        "signed_at": .number(Double(completion.signedAt)), "signature": .string(completion.signature),
                    ]
                    object["device_name"] = completion.deviceName.map(JSONValue.string)
                    return .object(object)
                }
                return Self.reply(["completions": .array(list)])
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    static func reply(_ object: [String: JSONValue]) -> GatewayReply {
        GatewayReply(status: 200, body: (try? JSONValue.object(object).encodedBytes()) ?? [])
    }

    static func encoded(_ answer: AwaitedDecision) throws -> GatewayReply {
        var object: [String: JSONValue] = ["decided": .bool(answer.decided)]
        object["decision"] = answer.decision.map(JSONValue.string)
        object["decided_by"] = answer.decidedBy.map(JSONValue.string)
        object["signed_at"] = answer.signedAt.map { .number(Double($0)) }
        object["signature"] = answer.signature.map(JSONValue.string)
        object["message"] = answer.message.map(JSONValue.string)
        object["resolution"] = answer.resolution.map(JSONValue.string)
        return reply(object)
    }

    static func refusal(_ status: UInt, _ code: String, _ reason: String?) -> GatewayReply {
        var error: [String: JSONValue] = ["status": .string(code), "message": "refused"]
        error["reason"] = reason.map(JSONValue.string)
        return GatewayReply(
            status: status, body: (try? JSONValue.object(["error": .object(error)]).encodedBytes()) ?? [])
    }
}

/// A scratch pin file, removed with its folder.
struct ScratchPins: ~Copyable {
    let folder: URL
    let file: PinFile

    init() {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("pins-\(UUID().uuidString)")
        file = PinFile(path: folder.appendingPathComponent("pins.json").path)
    }

    /// `phones` paired, as `pushgate pair` would have.
    func pair(_ phones: FakePhone...) throws {
        try file.update { pins in
            for phone in phones {
                pins.pin(phone.decisionKey, of: phone.installationID, deviceName: phone.name, at: Date())
            }
        }
    }

    deinit {
        try? FileManager.default.removeItem(at: folder)
    }
}
