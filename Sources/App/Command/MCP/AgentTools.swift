import Foundation
import MCP
import PushgateAgentHooks
import PushgateCore

/// The tools `pushgate mcp` serves (issue 74), each a call to the gateway:
/// `notify_user` (a push, answered with what became of it on each device),
/// `ask_user` (a question the person answers in words from the lock screen, waited
/// for and checked as the hook checks a decision) and `list_devices`. A tool that
/// cannot do its work answers `isError` with the reason, as MCP asks; arguments it
/// cannot read are the protocol's invalid-params error.
struct AgentTools: Sendable {
    let gateway: GatewayCallOptions
    /// Seconds one call other than `ask_user`'s wait may take.
    let callTimeout: Double
    let pinsPath: String
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
        let answer: [String: JSONValue]
        switch await post("triggerEvent", body) {
        case .failure(let reason): return Self.failed("Not sent: \(reason)")
        case .success(let object): answer = object
        }
        let report = DeliveryReport(answer, cwd: cwd)
        return Self.result(report.text, structured: report.structured, isError: report.deviceCount == 0)
    }

    private func ask(_ question: String, wait: Double, cwd: String) async -> CallTool.Result {
        let askedAt = Date()
        var pins: DecisionPins
        do {
            pins = try DecisionPins.read(at: pinsPath)
        } catch {
            return Self.failed("Not asked: the pin file \(pinsPath) \(error), so no answer could be trusted")
        }
        let body: [String: JSONValue] = ["cwd": .string(cwd), "type": "question_asked", "body": .string(question)]
        let answer: [String: JSONValue]
        switch await post("triggerEvent", body) {
        case .failure(let reason): return Self.failed("Not asked: \(reason)")
        case .success(let object): answer = object
        }
        let report = DeliveryReport(answer, cwd: cwd)
        guard report.deviceCount > 0, let eventID = answer["event_id"]?.stringValue else {
            return Self.result(
                "Not asked: \(report.text)", structured: ["answered": false, "reason": "nobody_subscribed"],
                isError: true)
        }
        let serverKey: String
        do {
            serverKey = try gateway.client(timeout: callTimeout, warning: false).secret.serverKey.hex
        } catch {
            return Self.failed("Not asked: \(error)")
        }
        let awaiter = DecisionAwaiter(gateway: gateway, callTimeout: callTimeout)
        let decision = await awaiter.decision(
            on: eventID, kind: .answer, serverKey: serverKey, askedAt: askedAt,
            until: .now + .milliseconds(Int(wait * 1000)), pins: &pins)
        let waited: Value = ["event_id": .string(eventID), "asked": .string(report.text)]
        switch decision {
        case .answer(let words):
            do {
                try pins.write(to: pinsPath)
            } catch {
                return Self.failed("An answer came but is not passed on: the pin file \(pinsPath) cannot be written")
            }
            return Self.result(
                words, structured: ["answered": true, "answer": .string(words), "event_id": .string(eventID)])
        case .pending:
            let seconds = String(format: "%g", wait)
            return Self.result(
                "No answer in \(seconds) s. An answer that comes later is kept: GET /replies?cwd=… lists it.",
                structured: ["answered": false, "reason": "no_answer_in_time", "waited": waited])
        case .resolved(let resolution):
            return Self.result(
                "The question was closed (\(resolution)) without an answer.",
                structured: ["answered": false, "reason": .string(resolution), "waited": waited])
        case .refused(let reason):
            return Self.failed("An answer came but was refused: \(reason)")
        case .allow, .deny:
            return Self.failed("An approval's decision came where an answer was asked for")
        }
    }

    private func devices(of cwd: String) async -> CallTool.Result {
        let answer: (status: UInt, text: String)
        do {
            let client = try gateway.client(timeout: callTimeout, warning: false)
            answer = try await client.fetch(
                "diagnostics", query: ["agent_key": AgentKey(cwd: cwd).hex, "page_size": "500"])
        } catch {
            return Self.failed("The gateway cannot be asked: \(error)")
        }
        guard let object = Self.object(answer), (200..<300).contains(answer.status) else {
            return Self.failed("The gateway answered \(answer.status): \(answer.text.prefix(300))")
        }
        let listed = (object["devices"]?.arrayValue ?? []).compactMap(\.objectValue)
        guard !listed.isEmpty else {
            return Self.result("Nobody is subscribed to \(cwd).", structured: ["cwd": .string(cwd), "devices": []])
        }
        let lines = listed.map { device -> String in
            let id = device["installation_id"]?.stringValue ?? "?"
            var words = [device["platform"]?.stringValue, device["token_kind"]?.stringValue].compactMap { $0 }
            if device["can_decide"] == .bool(true) { words.append("can answer") }
            if let last = device["last_outcome"]?.stringValue { words.append("last push \(last)") }
            return "- \(id): " + words.joined(separator: ", ")
        }
        let more = object["next_page_token"]?.stringValue != nil ? "\n(more devices than one page lists)" : ""
        return Self.result(
            "\(listed.count) device(s) subscribed to \(cwd):\n" + lines.joined(separator: "\n") + more,
            structured: ["cwd": .string(cwd), "devices": .array(listed.map { Self.value(.object($0)) })])
    }

    /// POSTs `body` to `function`: its answer's JSON object, or why there is none.
    private func post(_ function: String, _ body: [String: JSONValue]) async -> Result<[String: JSONValue], Failure> {
        let answer: (status: UInt, text: String)
        do {
            answer = try await gateway.client(timeout: callTimeout, warning: false).post(function, body: body)
        } catch {
            return .failure(Failure(description: "the gateway cannot be reached (\(error))"))
        }
        guard let object = Self.object(answer) else {
            return .failure(Failure(description: "the gateway answered \(answer.status): \(answer.text.prefix(300))"))
        }
        guard (200..<300).contains(answer.status) else {
            let error = object["error"]?.objectValue
            let message = error?["message"]?.stringValue ?? answer.text
            return .failure(Failure(description: "the gateway refused it (\(answer.status)): \(message.prefix(300))"))
        }
        return .success(object)
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private static func object(_ answer: (status: UInt, text: String)) -> [String: JSONValue]? {
        (try? JSONValue.parse(Array(answer.text.utf8)))?.objectValue
    }

    private static func result(_ text: String, structured: Value, isError: Bool = false) -> CallTool.Result {
        // The non-generic initializer: a `Value` needs no encoding (the generic one throws).
        let structuredContent: Value? = structured
        return CallTool.Result(content: [.text(text)], structuredContent: structuredContent, isError: isError)
    }

    private static func failed(_ text: String) -> CallTool.Result {
        CallTool.Result(content: [.text(text)], isError: true)
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

    /// The gateway's JSON as MCP's.
    static func value(_ json: JSONValue) -> Value {
        switch json {
        case .null: .null
        case .bool(let flag): .bool(flag)
        case .number(let number):
            if let whole = Int(exactly: number) { .int(whole) } else { .double(number) }
        case .string(let text): .string(text)
        case .array(let items): .array(items.map(value))
        case .object(let fields): .object(fields.mapValues(value))
        }
    }
}
