import Foundation
import PushgateAgentHooks
import PushgateCore

/// What the hooks that wait for a person share (``PermissionRequestHook``,
/// ``StopReplyHook``): one call to the gateway told as a line, and the long poll of
/// `awaitDecision` until a decision checked by the hook itself (``PermissionDecision``).
struct DecisionAwaiter {
    let gateway: GatewayCallOptions
    /// How long one call other than the wait may take.
    let callTimeout: Double

    /// The longest one `awaitDecision` call holds, as the gateway allows.
    static let maxWaitPerCall = 300.0

    /// One call, as the line says it went, and the answer's JSON when it was a 2xx.
    func post(_ client: GatewayClient, _ function: String, _ body: [String: JSONValue]) async -> (
        line: String, answer: JSONValue?
    ) {
        do {
            let answer = try await client.post(function, body: body)
            guard (200..<300).contains(answer.status) else {
                return ("\(function) answered \(answer.status): \(answer.text.prefix(300))", nil)
            }
            return ("\(function) answered \(answer.status)", try? JSONValue.parse(Array(answer.text.utf8)))
        } catch {
            return ("\(function) not sent: \(error)", nil)
        }
    }

    /// Waits on `awaitDecision` until a decision other than pending, or `deadline`;
    /// a gateway that cannot be reached (restarting) is asked again each second.
    func decision(
        on eventID: String, kind: DecisionKind, serverKey: String, askedAt: Date,
        until deadline: ContinuousClock.Instant, pins: inout DecisionPins
    ) async -> PermissionDecision {
        while true {
            let left = ContinuousClock.now.duration(to: deadline)
            // Cancelled (an MCP client that gave up): no sleep would wait any more.
            guard left > .zero, !Task.isCancelled else { return .pending }
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
                let decision = PermissionDecision(
                    answer: json, serverKey: serverKey, eventID: eventID, askedAt: askedAt, kind: kind, pins: &pins)
                if decision != .pending { return decision }
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
}

extension DecisionPins {
    /// Where the decision keys are pinned: `option` (`--pins`), else beside the secret
    /// file, else in the user's configuration directory.
    static func path(option: String?, secretFile: String?) -> String {
        if let option { return HookSettings.absolute(option) }
        if let secretFile { return HookSettings.absolute(secretFile) + ".pins" }
        let home = ProcessInfo.processInfo.environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.config/pushgate/decision-pins.json"
    }

    /// The pins at `path`; none when there is no file yet.
    static func read(at path: String) throws -> DecisionPins {
        guard FileManager.default.fileExists(atPath: path) else { return DecisionPins() }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw DecisionPins.Unreadable(description: "cannot be read")
        }
        defer { try? handle.close() }
        let data = (try? handle.read(upToCount: DecisionPins.maxFileBytes + 1)) ?? Data()
        return try DecisionPins(file: Array(data))
    }

    /// Writes the pins whole: a new file, 0600, renamed over the old one.
    func write(to path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        let temporary = path + ".\(getpid()).new"
        guard
            FileManager.default.createFile(
                atPath: temporary, contents: Data(file), attributes: [.posixPermissions: 0o600])
        else { throw CommandFailure("cannot create \(temporary)") }
        guard rename(temporary, path) == 0 else {
            try? FileManager.default.removeItem(atPath: temporary)
            throw CommandFailure("cannot rename \(temporary) to \(path)")
        }
    }
}
