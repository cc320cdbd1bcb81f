import Foundation
import PushgateCore

/// `pushgate hook`'s answer to a `PermissionRequest` (Claude Code's and Codex's,
/// issue 73): it pushes the approval, waits on `awaitDecision` for a decision signed
/// on a phone (reconnecting while the gateway restarts), checks that decision itself
/// (``PermissionVerdict``: the signature, the key pinned for that phone) and prints
/// it for the agent. With no decision in time, the gateway gone, or anything wrong it
/// prints nothing — the agent's own prompt goes on — and resolves the event
/// `expired` where it still can, so that the phones withdraw it.
struct PermissionRequestHook {
    let event: ClaudeHookEvent
    let gateway: GatewayCallOptions
    /// How long it waits for a decision (`--decision-wait`).
    let decisionWait: Double
    /// Where the pins are kept (``DecisionPins``).
    let pinsPath: String
    let pending: PendingApprovals
    /// How long one call other than the wait may take.
    let callTimeout: Double

    /// The longest one `awaitDecision` call holds, as the gateway allows.
    static let maxWaitPerCall = 300.0

    /// What to print (`nil`: nothing) and the hook's one line.
    func run(lastToolUseID: () -> String?) async -> (output: String?, line: String) {
        let askedAt = Date()
        let deadline = ContinuousClock.now + .seconds(decisionWait)
        let client: GatewayClient
        do {
            client = try gateway.client(timeout: callTimeout, warning: false)
        } catch {
            return (nil, "nothing sent: \(error)")
        }
        let (function, body) = event.call(now: askedAt, transcriptText: { nil }, lastToolUseID: lastToolUseID)
        guard let eventID = body["event_id"]?.stringValue else { return (nil, "nothing sent: no event id") }
        var pins: DecisionPins
        do {
            pins = try Self.readPins(at: pinsPath)
        } catch {
            // Pushed all the same, as a Notification would be; no decision can be obeyed.
            let sent = await post(client, function, body)
            return (nil, "\(sent); no decision awaited: the pin file \(pinsPath) \(error)")
        }
        pending.record(eventID: eventID, session: event.sessionID)
        defer { pending.remove(eventID: eventID, session: event.sessionID) }
        let sent = await post(client, function, body)
        guard sent.hasSuffix("answered 200") || sent.hasSuffix("answered 202") else { return (nil, sent) }

        let verdict = await waitForDecision(
            eventID: eventID, serverKey: client.secret.serverKey.hex, askedAt: askedAt, until: deadline,
            pins: &pins)
        switch verdict {
        case .allow, .deny:
            do {
                try Self.write(pins, to: pinsPath)
            } catch {
                return (nil, "a decision came, not obeyed: the pin file \(pinsPath) cannot be written (\(error))")
            }
            return (verdict.output, "\(eventID) decided on the phone: \(verdict == .allow ? "allow" : "deny")")
        case .resolved(let resolution):
            return (nil, "\(eventID) resolved \(resolution) without a decision: the agent's own prompt goes on")
        case .refused(let reason):
            return (nil, "\(eventID): a decision refused: \(reason)")
        case .pending:
            // Resolved for the phones to withdraw it; within the call's time, as every call.
            let resolved = await post(
                client, "resolveEvent", ["event_id": .string(eventID), "resolution": "expired"])
            return (nil, "no decision within \(Int(decisionWait)) s: \(resolved)")
        }
    }

    /// Waits on `awaitDecision` until a verdict other than pending, or `deadline`;
    /// a gateway that cannot be reached (restarting) is asked again each second.
    private func waitForDecision(
        eventID: String, serverKey: String, askedAt: Date, until deadline: ContinuousClock.Instant,
        pins: inout DecisionPins
    ) async -> PermissionVerdict {
        while true {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { return .pending }
            let seconds = min(Self.maxWaitPerCall, Double(left.components.seconds))
            let answer: (status: UInt, text: String)
            do {
                // The call outlives its wait by the time an answer takes to come.
                let client = try gateway.client(timeout: seconds + callTimeout, warning: false)
                answer = try await client.post(
                    "awaitDecision", body: ["event_id": .string(eventID), "wait": .number(seconds.rounded(.down))])
            } catch {
                try? await Task.sleep(for: min(.seconds(1), left))
                continue
            }
            switch answer.status {
            case 200:
                guard let json = try? JSONValue.parse(Array(answer.text.utf8)) else {
                    return .refused("awaitDecision's answer is not JSON")
                }
                let verdict = PermissionVerdict(
                    answer: json, serverKey: serverKey, eventID: eventID, askedAt: askedAt, pins: &pins)
                if verdict != .pending { return verdict }
                // Less than a second left: the wait rounded down to 0 answers at once.
                if seconds < 1 { return .pending }
            case 429, 500...599:
                // Too many waits held, or a gateway in trouble: asked again shortly.
                try? await Task.sleep(for: min(.seconds(1), left))
            default:
                return .refused("awaitDecision answered \(answer.status): \(answer.text.prefix(300))")
            }
        }
    }

    /// One call, as the line says it went.
    private func post(_ client: GatewayClient, _ function: String, _ body: [String: JSONValue]) async -> String {
        do {
            let answer = try await client.post(function, body: body)
            guard (200..<300).contains(answer.status) else {
                return "\(function) answered \(answer.status): \(answer.text.prefix(300))"
            }
            return "\(function) answered \(answer.status)"
        } catch {
            return "\(function) not sent: \(error)"
        }
    }

    /// The pins at `path`; none when there is no file yet.
    static func readPins(at path: String) throws -> DecisionPins {
        guard FileManager.default.fileExists(atPath: path) else { return DecisionPins() }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw DecisionPins.Unreadable(description: "cannot be read")
        }
        defer { try? handle.close() }
        let data = (try? handle.read(upToCount: DecisionPins.maxFileBytes + 1)) ?? Data()
        return try DecisionPins(file: Array(data))
    }

    /// Writes `pins` whole: a new file, 0600, renamed over the old one.
    static func write(_ pins: DecisionPins, to path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        let temporary = path + ".\(getpid()).new"
        guard
            FileManager.default.createFile(
                atPath: temporary, contents: Data(pins.file), attributes: [.posixPermissions: 0o600])
        else { throw CommandFailure("cannot create \(temporary)") }
        guard rename(temporary, path) == 0 else {
            try? FileManager.default.removeItem(atPath: temporary)
            throw CommandFailure("cannot rename \(temporary) to \(path)")
        }
    }
}
