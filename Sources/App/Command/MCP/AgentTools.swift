import Foundation
import MCP
import PushgateAgentHooks
import PushgateAgentSide
import PushgateCore

/// The tools `pushgate mcp` serves (issue 74), each a call to the gateway:
/// `notify_user` (a push, answered with what became of it on each device),
/// `ask_user` (a question the person answers in words from the lock screen, waited
/// for and heard only from a phone paired on this machine: ``UserQuestion``) and
/// `list_devices`. A tool that
/// cannot do its work answers `isError` with the reason, as MCP asks; arguments it
/// cannot read are the protocol's invalid-params error.
struct AgentTools: Sendable {
    let gateway: any AgentGateway
    /// One call other than `ask_user`'s wait.
    let callTimeout: Duration
    let pins: PinFile
    /// The agent's folder when a call names none.
    let defaultCwd: String

    /// The longest `ask_user` waits, and how long when it is not told.
    static let maxWait = 3_600.0
    static let defaultWait = 300.0

    static var definitions: [Tool] {
        let cwd: Value = [
            "type": "string",
            "description": "The agent's folder (its working directory); default: the MCP server's working directory.",
        ]
        return [
            Tool(
                name: "notify_user",
                description:
                    "Send the person who runs this agent a push notification on their phone or browser. Answers what happened on each device: delivered, failed (and why), or that nobody is subscribed.",
                inputSchema: [
                    "type": "object",
                    "properties": [
                        "message": [
                            "type": "string", "description": "What to tell them (up to 4,000 characters).",
                        ],
                        "title": ["type": "string", "description": "A short title (up to 200 characters)."],
                        "cwd": cwd,
                    ],
                    "required": ["message"],
                ],
                annotations: .init(title: "Notify the user", readOnlyHint: false, destructiveHint: false)),
            Tool(
                name: "ask_user",
                description:
                    "Ask the person who runs this agent a question on their phone and wait for the answer they type on the lock screen. Answers their words, or that no answer came in time (a later answer is kept at GET /replies).",
                inputSchema: [
                    "type": "object",
                    "properties": [
                        "question": [
                            "type": "string", "description": "The question (up to 4,000 characters).",
                        ],
                        "wait": [
                            "type": "number",
                            "description": "Seconds to wait for the answer: 0 to 3600, default 300.",
                            "minimum": 0, "maximum": 3600,
                        ],
                        "cwd": cwd,
                    ],
                    "required": ["question"],
                ],
                annotations: .init(title: "Ask the user", readOnlyHint: false, destructiveHint: false)),
            Tool(
                name: "list_devices",
                description:
                    "List the devices subscribed to this agent's pushes: their installation, platform, push service, whether they can answer, and how the last push went.",
                inputSchema: ["type": "object", "properties": ["cwd": cwd]],
                annotations: .init(title: "List the user's devices", readOnlyHint: true)),
        ]
    }

    func call(_ name: String, _ arguments: [String: Value]) async throws -> CallTool.Result {
        let cwd = try Self.text(arguments["cwd"], "cwd", upTo: 1024) ?? defaultCwd
        switch name {
        case "notify_user":
            guard let message = try Self.text(arguments["message"], "message", upTo: 4000) else {
                throw MCPError.invalidParams("notify_user needs 'message'")
            }
            return await notify(message, title: try Self.text(arguments["title"], "title", upTo: 200), cwd: cwd)
        case "ask_user":
            guard let question = try Self.text(arguments["question"], "question", upTo: 4000) else {
                throw MCPError.invalidParams("ask_user needs 'question'")
            }
            return await ask(question, wait: try Self.seconds(arguments["wait"]), cwd: cwd)
        case "list_devices":
            return await devices(of: cwd)
        default:
            throw MCPError.invalidParams("no tool is named '\(name.prefix(64))'")
        }
    }

    private func notify(_ message: String, title: String?, cwd: String) async -> CallTool.Result {
        var body: [String: JSONValue] = ["cwd": .string(cwd), "type": "agent_message", "body": .string(message)]
        body["title"] = title.map(JSONValue.string)
        let receipt: TriggerReceipt
        do {
            receipt = try await gateway.trigger(GatewayCall(.triggerEvent, body), timeout: callTimeout).answer
        } catch {
            return Self.failed("Not sent: \(Self.reason(error))")
        }
        let report = DeliveryReport(receipt, cwd: cwd)
        return Self.result(report.text, structured: report.structured, isError: report.deviceCount == 0)
    }

    private func ask(_ question: String, wait: Double, cwd: String) async -> CallTool.Result {
        let asking = UserQuestion(gateway: gateway, pins: pins, callTimeout: callTimeout)
        switch await asking.ask(question, cwd: cwd, wait: .milliseconds(Int(wait * 1000))) {
        case .answered(let words, _, let eventID):
            return Self.result(
                words, structured: ["answered": true, "answer": .string(words), "event_id": .string(eventID)])
        case .notAsked(let reason, let receipt?):
            let report = DeliveryReport(receipt, cwd: cwd)
            let why = report.deviceCount == 0 ? report.text : reason
            return Self.result(
                "Not asked: \(why)",
                structured: ["answered": false, "reason": report.deviceCount == 0 ? "nobody_subscribed" : "not_asked"],
                isError: true)
        case .notAsked(let reason, nil):
            return Self.failed("Not asked: \(reason)")
        case .noAnswer(let eventID, let receipt):
            let seconds = String(format: "%g", wait)
            return Self.result(
                "No answer in \(seconds) s. An answer that comes later is kept: GET /replies?cwd=… lists it.",
                structured: [
                    "answered": false, "reason": "no_answer_in_time", "waited": Self.waited(eventID, receipt, cwd),
                ])
        case .closed(let resolution, let eventID, let receipt):
            return Self.result(
                "The question was closed (\(resolution)) without an answer.",
                structured: [
                    "answered": false, "reason": .string(resolution.word), "waited": Self.waited(eventID, receipt, cwd),
                ])
        case .refused(let reason, _):
            return Self.failed("An answer came but was refused: \(reason)")
        }
    }

    private static func waited(_ eventID: String, _ receipt: TriggerReceipt, _ cwd: String) -> Value {
        ["event_id": .string(eventID), "asked": .string(DeliveryReport(receipt, cwd: cwd).text)]
    }

    private func devices(of cwd: String) async -> CallTool.Result {
        let listed: AgentDevices
        do {
            listed = try await gateway.devices(of: cwd, timeout: callTimeout)
        } catch {
            return Self.failed("The gateway cannot be asked: \(Self.reason(error))")
        }
        guard !listed.devices.isEmpty else {
            return Self.result("Nobody is subscribed to \(cwd).", structured: ["cwd": .string(cwd), "devices": []])
        }
        let lines = listed.devices.map { device -> String in
            var words = [device.platform, device.tokenKind].compactMap { $0 }
            if device.canDecide == true { words.append("can answer") }
            if let last = device.lastOutcome { words.append("last push \(last)") }
            let name = device.deviceName.map { " (\($0))" } ?? ""
            return "- \(device.installationID)\(name): " + words.joined(separator: ", ")
        }
        let more = listed.nextPageToken != nil ? "\n(more devices than one page lists)" : ""
        return Self.result(
            "\(listed.devices.count) device(s) subscribed to \(cwd):\n" + lines.joined(separator: "\n") + more,
            structured: [
                "cwd": .string(cwd),
                "devices": .array(
                    listed.devices.map { device in
                        var entry: [String: Value] = ["installation_id": .string(device.installationID)]
                        entry["device_name"] = device.deviceName.map(Value.string)
                        entry["platform"] = device.platform.map(Value.string)
                        entry["token_kind"] = device.tokenKind.map(Value.string)
                        entry["can_decide"] = device.canDecide.map(Value.bool)
                        entry["last_outcome"] = device.lastOutcome.map(Value.string)
                        return .object(entry)
                    }),
            ])
    }

    /// What the gateway said, in a sentence: its error's message when it refused.
    private static func reason(_ error: GatewayCallError) -> String {
        switch error.kind {
        case .unreachable: "the gateway cannot be reached (\(error.description))"
        case .refused(let status, let refusal):
            "the gateway refused it (\(status)): \(refusal?.error.message.prefix(300) ?? Substring(error.description))"
        case .unreadable: error.description
        }
    }

    private static func result(_ text: String, structured: Value, isError: Bool = false) -> CallTool.Result {
        // The non-generic initializer: a `Value` needs no encoding (the generic one throws).
        let structuredContent: Value? = structured
        return CallTool.Result(
            content: [.text(text: text, annotations: nil, _meta: nil)], structuredContent: structuredContent,
            isError: isError)
    }

    private static func failed(_ text: String) -> CallTool.Result {
        CallTool.Result(content: [.text(text: text, annotations: nil, _meta: nil)], isError: true)
    }

    /// A string argument of at most `limit` characters; `nil` when absent.
    static func text(_ value: Value?, _ name: String, upTo limit: Int) throws -> String? {
        guard let value, value != .null else { return nil }
        guard let text = value.stringValue, !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty,
            text.count <= limit
        else { throw MCPError.invalidParams("'\(name)' must be text of 1 to \(limit) characters") }
        return text
    }

    /// `ask_user`'s `wait`: seconds from 0 to ``maxWait``, ``defaultWait`` when absent.
    static func seconds(_ value: Value?) throws -> Double {
        let seconds: Double?
        switch value {
        case nil, .null?: return defaultWait
        case .int(let whole)?: seconds = Double(whole)
        case .double(let number)?: seconds = number
        default: seconds = nil
        }
        guard let seconds, seconds.isFinite, (0...maxWait).contains(seconds) else {
            throw MCPError.invalidParams("'wait' must be seconds from 0 to \(Int(maxWait))")
        }
        return seconds
    }
}
