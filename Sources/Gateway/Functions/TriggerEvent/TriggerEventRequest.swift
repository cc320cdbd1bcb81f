import Foundation
import PushgateCore

/// A checked `triggerEvent` body (see `functions/triggerEvent/`) and its
/// `Idempotency-Key` header: the trigger it asks for.
public struct TriggerEventRequest: Sendable, Hashable {
    /// The most UTF-8 bytes `data` may take, encoded as JSON.
    public static let maxDataBytes = 2048
    /// The most UTF-8 bytes `progress` may take, encoded as JSON.
    public static let maxProgressBytes = 1024

    /// The schemes `app_url` may use besides `https` when the gateway is not told
    /// (`PUSHGATE_APP_URL_SCHEMES`): the CodeAgents app's own.
    public static let defaultAppURLSchemes: Set<String> = ["codeagents"]

    /// Schemes a link never uses, whatever the setting: they run code or read files
    /// on the phone instead of opening an app.
    public static let forbiddenSchemes: Set<String> = ["javascript", "vbscript", "file", "data", "blob", "about"]

    public let trigger: TriggerRequest

    /// Checks every field; `app_url` may use `https` or one of `appURLSchemes`.
    public init(
        fields: RequestFields, idempotencyKey header: String? = nil,
        appURLSchemes: Set<String> = defaultAppURLSchemes
    ) throws(FunctionError) {
        // `scope: server` reaches every device of every agent: it names no agent.
        let cwd: String?
        switch try fields.optionalString("scope") {
        case nil, "agent"?:
            cwd = try FieldRules.cwd(fields.requiredString("cwd"))
        case "server"?:
            guard try fields.optionalString("cwd") == nil else {
                throw .invalidArgument("'cwd' names one agent: leave it out with scope server", field: "cwd")
            }
            cwd = nil
        case let other?:
            throw .invalidArgument("'scope' must be agent or server, not '\(other.prefix(40))'", field: "scope")
        }
        let only = try fields.optionalString("installation_id").map { id throws(FunctionError) in
            try FieldRules.installationID(id)
        }
        let typeName = try fields.requiredString("type")
        guard let type = EventType(rawValue: typeName) else {
            throw .invalidArgument(
                "'type' must be reply_finished, approval_requested, question_asked, run_completed, run_failed, run_started, run_progress, run_ended, or a name of 1 to 40 of a-z, 0-9 and _ starting with a letter",
                field: "type"
            )
        }
        var event = EventComposer.Event(type: type, cwd: cwd)
        event.title = try fields.optionalString("title").map { title throws(FunctionError) in
            try FieldRules.text(title, field: "title", maxCharacters: 200)
        }.flatMap { $0.isEmpty ? nil : $0 }
        event.body = try fields.optionalString("body", multiline: true)
        event.data = try Self.data(fields.optionalObject("data", multiline: true) ?? [:])
        event.progress = try fields.optionalObject("progress").map { progress throws(FunctionError) in
            let size = (try? JSONValue.object(progress).encodedData().count) ?? Int.max
            guard size <= Self.maxProgressBytes else {
                throw .invalidArgument(
                    "'progress' is \(size) bytes as JSON; at most \(Self.maxProgressBytes) are allowed",
                    field: "progress")
            }
            return progress
        }
        event.eventID = try fields.optionalString("event_id").map { id throws(FunctionError) in
            guard !id.isEmpty else { throw .invalidArgument("'event_id' must not be empty", field: "event_id") }
            return try FieldRules.text(id, field: "event_id", maxCharacters: 200)
        }
        event.threadID = try fields.optionalString("thread_id").map { id throws(FunctionError) in
            try FieldRules.text(id, field: "thread_id", maxCharacters: 200)
        }
        if let level = try fields.optionalString("interruption_level") {
            guard ["passive", "active", "time-sensitive"].contains(level) else {
                throw .invalidArgument(
                    "'interruption_level' must be passive, active or time-sensitive", field: "interruption_level")
            }
            event.interruptionLevel = level
        }
        if let badge = try fields.optionalString("badge") {
            guard ["increment", "none"].contains(badge) else {
                throw .invalidArgument("'badge' must be increment or none", field: "badge")
            }
            event.showsBadge = badge == "increment"
        }
        event.appURL = try fields.optionalString("app_url").map { url throws(FunctionError) in
            try Self.link(
                url, field: "app_url", schemes: appURLSchemes.union(["https"]).subtracting(Self.forbiddenSchemes))
        }
        event.webURL = try fields.optionalString("web_url").map { url throws(FunctionError) in
            try Self.link(url, field: "web_url", schemes: ["http", "https"])
        }
        event.answerable = try Self.answerable(fields, type: type, cwd: cwd)
        if let choices = try fields.optionalObject("choices") {
            // What the person chooses from (issue 84): an answer goes back to one agent.
            guard event.answerable else {
                throw .invalidArgument(
                    "'choices' goes with a question the person answers (question_asked, or answerable)",
                    field: "choices")
            }
            event.data[EventComposer.choicesKey] = .string(try ChoicesField.read(.object(choices)))
        }
        if let always = try fields.optionalString("allow_always") {
            guard !always.isEmpty, type == .approvalRequested, event.eventID != nil else {
                throw .invalidArgument(
                    "'allow_always' (1 to 200 characters) goes with an approval_requested that has its event_id",
                    field: "allow_always")
            }
            event.data[EventComposer.allowAlwaysKey] = .string(
                try FieldRules.text(always, field: "allow_always", maxCharacters: 200))
        }
        let occurredAt = try fields.optionalTimestamp("occurred_at")
        // Events of one type are ordered by `occurred_at` per agent, or per ordering key when given.
        let orderingKey = try fields.optionalString("ordering_key").map { key throws(FunctionError) in
            guard !key.isEmpty else {
                throw .invalidArgument("'ordering_key' must not be empty", field: "ordering_key")
            }
            return try FieldRules.text(key, field: "ordering_key", maxCharacters: 200)
        }
        let idempotencyKey = try FieldRules.idempotencyKeyHeader(header) ?? event.eventID.map { "event:" + $0 }
        var trigger = TriggerRequest(
            event: event,
            occurredAt: occurredAt,
            ordering: orderingKey.map(TriggerRequest.Ordering.byKey) ?? .byType,
            idempotencyKey: idempotencyKey,
            selection: DeviceSelection(onlyInstallationID: only),
            wait: try fields.optionalBool("wait") ?? true
        )
        // A server-wide event names no agent whose keyboard it could be.
        trigger.atKeyboard = try fields.optionalBool("at_keyboard") ?? false
        self.trigger = trigger
    }

    /// Whether the event can be answered in words (issue 74): a question always, any
    /// other event that shows a push when `answerable` says so; an answer goes back to
    /// one agent, and an approval is decided, not answered.
    static func answerable(_ fields: RequestFields, type: EventType, cwd: String?) throws(FunctionError) -> Bool {
        let asked = try fields.optionalBool("answerable")
        if asked == false, type.isAnswerableByDefault {
            throw .invalidArgument("a question is always answerable", field: "answerable")
        }
        guard type.isAnswerableByDefault || asked == true else { return false }
        guard cwd != nil else {
            throw .invalidArgument(
                "an answer goes back to one agent: an answerable event needs its 'cwd', not scope server",
                field: type.isAnswerableByDefault ? "scope" : "answerable")
        }
        guard type != .approvalRequested, !type.drivesActivityOnly else {
            throw .invalidArgument(
                type == .approvalRequested
                    ? "an approval is decided with allow or deny, not answered in words"
                    : "'\(type)' shows no push to answer",
                field: "answerable")
        }
        return true
    }

    /// Values keep their JSON type (APNs carries them as sent); a key set to `null`
    /// is left out.
    private static func data(_ given: [String: JSONValue]) throws(FunctionError) -> [String: JSONValue] {
        let data = given.filter { $0.value != .null }
        for key in data.keys {
            guard (1...64).contains(key.count) else {
                throw .invalidArgument("'data' keys must be 1 to 64 characters", field: "data")
            }
            guard !EventComposer.reservedDataKeys.contains(key) else {
                throw .invalidArgument("'data' must not set '\(key)': Pushgate sets it", field: "data")
            }
        }
        let size = (try? JSONValue.object(data).encodedData().count) ?? Int.max
        guard size <= maxDataBytes else {
            throw .invalidArgument(
                "'data' is \(size) bytes as JSON; at most \(maxDataBytes) are allowed", field: "data")
        }
        return data
    }

    /// A link: at most 2,048 characters, no white space, one of `schemes`; `http`
    /// and `https` links need a host.
    private static func link(_ text: String, field: String, schemes: Set<String>) throws(FunctionError) -> String {
        var allowed: String { schemes.sorted().joined(separator: ", ") }
        guard text.utf8.count <= 2048, !text.contains(where: \.isWhitespace), let colon = text.firstIndex(of: ":"),
            text.distance(from: text.startIndex, to: colon) > 0
        else {
            throw .invalidArgument("'\(field)' must be a URL (\(allowed)) of at most 2048 characters", field: field)
        }
        let scheme = text[..<colon].lowercased()
        guard schemes.contains(scheme) else {
            throw .invalidArgument(
                "'\(field)' must use one of the schemes \(allowed), not '\(scheme.prefix(32))'", field: field)
        }
        if scheme.hasPrefix("http") {
            guard text.dropFirst(scheme.count).hasPrefix("://"), text.count > scheme.count + 3 else {
                throw .invalidArgument("'\(field)' must be an http or https URL with a host", field: field)
            }
        }
        return text
    }
}
