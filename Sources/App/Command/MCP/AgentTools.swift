import Foundation
import PushgateAgentHooks
import PushgateAgentSide
import PushgateCore

/// The tools `pushgate mcp` serves (issue 74), each a call to the gateway:
/// `notify_user` (a push, answered with what became of it on each device),
/// `ask_user` (a question the person answers in words from the lock screen, waited
/// for and heard only from a phone paired on this machine: ``UserQuestion``) and
/// `list_devices`. A tool that cannot do its work — arguments it cannot read
/// included — answers `isError` with the reason, as MCP asks, so that the model can
/// correct itself (issue 83); only a tool that does not exist is the protocol's
/// invalid-params error (``JSONRPCError``). Each declares its output schema, which its
/// structured content follows.
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

    /// Arguments a tool cannot read: said to the model as the tool's failure.
    struct BadArgument: Error {
        let reason: String
    }

    static let names: Set<String> = ["notify_user", "ask_user", "list_devices"]

    /// `tools/list`'s tools.
    static var definitions: [JSONValue] {
        let cwd: JSONValue = [
            "type": "string",
            "description": "The agent's folder (its working directory); default: the MCP server's working directory.",
        ]
        return [
            [
                "name": "notify_user",
                "description":
                    "Send the person who runs this agent a push notification on their phone or browser. Answers what happened on each device: delivered, failed (and why), or that nobody is subscribed.",
                "inputSchema": [
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
                "outputSchema": DeliveryReport.outputSchema,
                "annotations": ["title": "Notify the user", "readOnlyHint": false, "destructiveHint": false],
            ],
            [
                "name": "ask_user",
                "description":
                    "Ask the person who runs this agent a question on their phone and wait for the answer they type on the lock screen. Answers their words, or that no answer came in time (a later answer is kept at GET /replies).",
                "inputSchema": [
                    "type": "object",
                    "properties": [
                        "question": [
                            "type": "string", "description": "The question (up to 4,000 characters).",
                        ],
                        "choices": [
                            "type": "array", "items": ["type": "string", "minLength": 1, "maxLength": 200],
                            "minItems": 2, "maxItems": 10,
                            "description":
                                "Answers the person picks from (2 to 10; up to 4 shown as buttons); they may still type their own.",
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
                "outputSchema": askOutputSchema,
                "annotations": ["title": "Ask the user", "readOnlyHint": false, "destructiveHint": false],
            ],
            [
                "name": "list_devices",
                "description":
                    "List the devices subscribed to this agent's pushes: their installation, platform, push service, whether they can answer, and how the last push went.",
                "inputSchema": ["type": "object", "properties": ["cwd": cwd]],
                "outputSchema": devicesOutputSchema,
                "annotations": ["title": "List the user's devices", "readOnlyHint": true],
            ],
        ]
    }

    /// `ask_user`'s structured content: answered (and the words), or why not.
    static let askOutputSchema: JSONValue = [
        "type": "object",
        "properties": [
            "answered": ["type": "boolean"], "answer": ["type": "string"], "event_id": ["type": "string"],
            "reason": [
                "type": "string",
                "enum": [
                    "nobody_subscribed", "not_asked", "no_answer_in_time", "refused", "expired", "answered_elsewhere",
                    "cancelled", "allowed", "denied", "answered", "resolved",
                ],
            ],
            "waited": [
                "type": "object",
                "properties": ["event_id": ["type": "string"], "asked": ["type": "string"]],
            ],
        ],
        "required": ["answered"],
    ]

    /// `list_devices`' structured content.
    static let devicesOutputSchema: JSONValue = [
        "type": "object",
        "properties": [
            "cwd": ["type": "string"],
            "devices": [
                "type": "array",
                "items": [
                    "type": "object",
                    "properties": [
                        "installation_id": ["type": "string"], "device_name": ["type": "string"],
                        "platform": ["type": "string"], "token_kind": ["type": "string"],
                        "can_decide": ["type": "boolean"], "last_outcome": ["type": "string"],
                    ],
                    "required": ["installation_id"],
                ],
            ],
        ],
        "required": ["cwd", "devices"],
    ]

    /// Runs the tool `name` (one of ``names``): its arguments it cannot read are its
    /// failure, said in words.
    func call(_ name: String, _ arguments: [String: JSONValue]) async -> ToolResult {
        do throws(BadArgument) {
            let cwd = try Self.text(arguments["cwd"], "cwd", upTo: 1024) ?? defaultCwd
            switch name {
            case "notify_user":
                guard let message = try Self.text(arguments["message"], "message", upTo: 4000) else {
                    throw BadArgument(reason: "notify_user needs 'message'")
                }
                return await notify(message, title: try Self.text(arguments["title"], "title", upTo: 200), cwd: cwd)
            case "ask_user":
                guard let question = try Self.text(arguments["question"], "question", upTo: 4000) else {
                    throw BadArgument(reason: "ask_user needs 'question'")
                }
                return await ask(
                    question, choices: try Self.choices(arguments["choices"]),
                    wait: try Self.seconds(arguments["wait"]),
                    cwd: cwd)
            default:
                return await devices(of: cwd)
            }
        } catch {
            return .failed("Not done: \(error.reason). Call \(name) again with it corrected.")
        }
    }

    private func notify(_ message: String, title: String?, cwd: String) async -> ToolResult {
        var body: [String: JSONValue] = ["cwd": .string(cwd), "type": "agent_message", "body": .string(message)]
        body["title"] = title.map(JSONValue.string)
        let receipt: TriggerReceipt
        do {
            receipt = try await gateway.trigger(GatewayCall(.triggerEvent, body), timeout: callTimeout).answer
        } catch {
            return .failed("Not sent: \(Self.reason(error))")
        }
        let report = DeliveryReport(receipt, cwd: cwd)
        return ToolResult(report.text, structured: report.structured, isError: report.deviceCount == 0)
    }

    /// `ask_user`'s `choices`: 2 to 10 labels of 1 to 200 characters, or none.
    private static func choices(_ value: JSONValue?) throws(BadArgument) -> [String] {
        guard let value, value != .null else { return [] }
        guard let labels = value.arrayValue?.compactMap(\.stringValue), labels.count == value.arrayValue?.count,
            (2...10).contains(labels.count), labels.allSatisfy({ (1...200).contains($0.count) }),
            Set(labels).count == labels.count
        else { throw BadArgument(reason: "'choices' must be 2 to 10 different labels of 1 to 200 characters") }
        return labels
    }

    private func ask(_ question: String, choices: [String], wait: Double, cwd: String) async -> ToolResult {
        let asking = UserQuestion(gateway: gateway, pins: pins, callTimeout: callTimeout)
        switch await asking.ask(question, choices: choices, cwd: cwd, wait: .milliseconds(Int(wait * 1000))) {
        case .answered(let words, _, let eventID):
            return ToolResult(
                words, structured: ["answered": true, "answer": .string(words), "event_id": .string(eventID)])
        case .notAsked(let reason, let receipt?):
            let report = DeliveryReport(receipt, cwd: cwd)
            let why = report.deviceCount == 0 ? report.text : reason
            return .failed(
                "Not asked: \(why)",
                structured: ["answered": false, "reason": report.deviceCount == 0 ? "nobody_subscribed" : "not_asked"])
        case .notAsked(let reason, nil):
            return .failed("Not asked: \(reason)", structured: ["answered": false, "reason": "not_asked"])
        case .noAnswer(let eventID, let receipt):
            let seconds = String(format: "%g", wait)
            return ToolResult(
                "No answer in \(seconds) s. An answer that comes later is kept: GET /replies?cwd=… lists it.",
                structured: [
                    "answered": false, "reason": "no_answer_in_time", "waited": Self.waited(eventID, receipt, cwd),
                ])
        case .closed(let resolution, let eventID, let receipt):
            let reason = Self.askOutputReasons.contains(resolution.word) ? resolution.word : "resolved"
            return ToolResult(
                "The question was closed (\(resolution)) without an answer.",
                structured: [
                    "answered": false, "reason": .string(reason), "waited": Self.waited(eventID, receipt, cwd),
                ])
        case .refused(let reason, let eventID):
            return .failed(
                "An answer came but was refused: \(reason)",
                structured: ["answered": false, "reason": "refused", "event_id": .string(eventID)])
        case .cancelled(let eventID):
            // Never sent: the client cancelled the call (the question is withdrawn).
            return .failed(
                "Cancelled.", structured: ["answered": false, "reason": "cancelled", "event_id": .string(eventID)])
        }
    }

    /// The resolutions ``askOutputSchema`` names; another is `resolved`.
    private static let askOutputReasons: Set<String> = [
        "expired", "answered_elsewhere", "cancelled", "allowed", "denied", "answered",
    ]

    private static func waited(_ eventID: String, _ receipt: TriggerReceipt, _ cwd: String) -> JSONValue {
        ["event_id": .string(eventID), "asked": .string(DeliveryReport(receipt, cwd: cwd).text)]
    }

    private func devices(of cwd: String) async -> ToolResult {
        let listed: AgentDevices
        do {
            listed = try await gateway.devices(of: cwd, timeout: callTimeout)
        } catch {
            return .failed("The gateway cannot be asked: \(Self.reason(error))")
        }
        guard !listed.devices.isEmpty else {
            return ToolResult("Nobody is subscribed to \(cwd).", structured: ["cwd": .string(cwd), "devices": []])
        }
        let lines = listed.devices.map { device -> String in
            var words = [device.platform, device.tokenKind].compactMap { $0 }
            if device.canDecide == true { words.append("can answer") }
            if let last = device.lastOutcome { words.append("last push \(last)") }
            let name = device.deviceName.map { " (\($0))" } ?? ""
            return "- \(device.installationID)\(name): " + words.joined(separator: ", ")
        }
        let more = listed.nextPageToken != nil ? "\n(more devices than one page lists)" : ""
        return ToolResult(
            "\(listed.devices.count) device(s) subscribed to \(cwd):\n" + lines.joined(separator: "\n") + more,
            structured: [
                "cwd": .string(cwd),
                "devices": .array(
                    listed.devices.map { device in
                        var entry: [String: JSONValue] = ["installation_id": .string(device.installationID)]
                        entry["device_name"] = device.deviceName.map(JSONValue.string)
                        entry["platform"] = device.platform.map(JSONValue.string)
                        entry["token_kind"] = device.tokenKind.map(JSONValue.string)
                        entry["can_decide"] = device.canDecide.map(JSONValue.bool)
                        entry["last_outcome"] = device.lastOutcome.map(JSONValue.string)
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

    /// A string argument of at most `limit` characters; `nil` when absent.
    static func text(_ value: JSONValue?, _ name: String, upTo limit: Int) throws(BadArgument) -> String? {
        guard let value, value != .null else { return nil }
        guard let text = value.stringValue, !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty,
            text.count <= limit
        else { throw BadArgument(reason: "'\(name)' must be text of 1 to \(limit) characters") }
        return text
    }

    /// `ask_user`'s `wait`: seconds from 0 to ``maxWait``, ``defaultWait`` when absent.
    static func seconds(_ value: JSONValue?) throws(BadArgument) -> Double {
        switch value {
        case nil, .null?: return defaultWait
        case .number(let seconds)? where seconds.isFinite && (0...maxWait).contains(seconds): return seconds
        default: throw BadArgument(reason: "'wait' must be seconds from 0 to \(Int(maxWait))")
        }
    }
}
