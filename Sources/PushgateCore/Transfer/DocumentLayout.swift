/// The documents `store/LAYOUT.md` allows, as rules an import checks each record
/// against: where a document may live (its path and the form of each key), which
/// fields it may have, of which type, and which it must have.
public enum DocumentLayout {
    /// What a path names.
    public enum Kind: String, Sendable {
        case server, source, agent, device, agentLastEvent, serverLastEvent, event, installation

        /// The kind in words, for messages.
        var name: String {
            switch self {
            case .server: "a server"
            case .source: "a source"
            case .agent: "an agent"
            case .device: "a device"
            case .agentLastEvent, .serverLastEvent: "an ordering guard (lastEvents)"
            case .event: "an event"
            case .installation: "an installation"
            }
        }
    }

    /// The type a field's value must have.
    enum FieldType {
        case timestamp, string, apnsToken, fcmToken, trueFlag, strings, timestamps, anything
        case oneOf(Set<String>)
        case text(maxCharacters: Int)

        func accepts(_ value: JSONValue) -> Bool {
            switch self {
            case .timestamp: value.stringValue.flatMap(RFC3339.parse) != nil
            case .string: value.stringValue != nil
            case .apnsToken: value.stringValue.map(DocumentLayout.isAPNsToken) ?? false
            case .fcmToken: value.stringValue.map(DocumentLayout.isFCMToken) ?? false
            case .trueFlag: value == .bool(true)
            case .strings: value.arrayValue?.allSatisfy { $0.stringValue != nil } ?? false
            case .timestamps: value.arrayValue?.allSatisfy { FieldType.timestamp.accepts($0) } ?? false
            case .anything: true
            case .oneOf(let allowed): value.stringValue.map(allowed.contains) ?? false
            case .text(let maxCharacters): value.stringValue.map { (1...maxCharacters).contains($0.count) } ?? false
            }
        }

        var name: String {
            switch self {
            case .timestamp: "an RFC 3339 timestamp"
            case .string: "a string"
            case .apnsToken: "64 to 200 lower-case hex digits"
            case .fcmToken: "1 to 4096 characters without white space"
            case .trueFlag: "true"
            case .strings: "an array of strings"
            case .timestamps: "an array of RFC 3339 timestamps"
            case .anything: "any value"
            case .oneOf(let allowed): allowed.sorted().map { "\"\($0)\"" }.joined(separator: " or ")
            case .text(let maxCharacters): "a string of 1 to \(maxCharacters) characters"
            }
        }
    }

    /// A field's rule: its type, and whether every document of its kind has it.
    struct FieldRule {
        let type: FieldType
        let required: Bool
    }

    static func rules(for kind: Kind) -> [String: FieldRule] {
        func required(_ type: FieldType) -> FieldRule { FieldRule(type: type, required: true) }
        func optional(_ type: FieldType) -> FieldRule { FieldRule(type: type, required: false) }
        switch kind {
        case .server:
            return [FieldName.createdAt: required(.timestamp), FieldName.lastSeenAt: optional(.timestamp)]
        case .source:
            return [
                FieldName.source: required(.text(maxCharacters: 128)), FieldName.createdAt: required(.timestamp),
                FieldName.lastSeenAt: required(.timestamp),
            ]
        case .agent:
            return [
                FieldName.cwd: required(.string), FieldName.agentDisplayName: optional(.string),
                FieldName.createdAt: required(.timestamp), FieldName.updatedAt: required(.timestamp),
                FieldName.lastTriggeredAt: optional(.timestamp),
            ]
        case .device:
            return [
                FieldName.apnsToken: optional(.apnsToken), FieldName.fcmToken: optional(.fcmToken),
                FieldName.platform: required(.oneOf(["ios", "ipados", "macos", "android"])),
                FieldName.appVersion: optional(.string), FieldName.bundleID: optional(.string),
                FieldName.apnsEnvironment: optional(.oneOf(["production", "sandbox"])),
                FieldName.apnsEnvironmentLearned: optional(.trueFlag),
                FieldName.createdAt: required(.timestamp), FieldName.updatedAt: required(.timestamp),
            ]
        case .agentLastEvent, .serverLastEvent:
            return [FieldName.lastOccurredAt: required(.timestamp)]
        case .event:
            return [
                FieldName.eventID: required(.string), FieldName.agentKey: required(.string),
                FieldName.type: required(.string), FieldName.notificationID: required(.string),
                FieldName.reminderNotificationIDs: required(.strings),
                FieldName.remindersDueAt: optional(.timestamps),
                FieldName.badgedInstallations: optional(.strings),
                // Written before badges were counted per installation; no longer read.
                "countedInstallations": optional(.anything),
                FieldName.expiresAt: optional(.timestamp), FieldName.createdAt: required(.timestamp),
                FieldName.resolvedAt: optional(.timestamp), FieldName.resolution: optional(.string),
            ]
        case .installation:
            return [FieldName.pendingApprovals: required(.strings), FieldName.updatedAt: required(.timestamp)]
        }
    }

    /// The kind of document `path` names, or why no document may live there.
    public static func kind(of path: DocumentPath) throws(DumpError) -> Kind {
        let segments = path.segments
        guard segments[0] == NamespacePaths.servers else {
            throw DumpError("'\(path.rawValue.prefix(80))' is not under servers/")
        }
        try require(isKey(segments[1]), "the server key '\(segments[1].prefix(80))' is not 64 lower-case hex digits")
        func agentKey(_ id: String) throws(DumpError) {
            try require(isKey(id), "the agent key '\(id.prefix(80))' is not 64 lower-case hex digits")
        }
        func installationID(_ id: String) throws(DumpError) {
            try require(isInstallationID(id), "'\(id.prefix(80))' is not an installation id")
        }
        func lastEventID(_ id: String) throws(DumpError) {
            try require(isLastEventID(id), "'\(id.prefix(80))' is not {type} or {type}-{sha256}")
        }
        switch (segments.count, segments.count > 2 ? segments[2] : "", segments.count > 4 ? segments[4] : "") {
        case (2, _, _): return .server
        case (4, NamespacePaths.agents, _):
            try agentKey(segments[3])
            return .agent
        case (4, NamespacePaths.sources, _):
            try require(isKey(segments[3]), "a source's id must be the SHA-256 of its name")
            return .source
        case (4, NamespacePaths.events, _):
            try require(isKey(segments[3]), "an event's id must be the SHA-256 of its event id")
            return .event
        case (4, NamespacePaths.installations, _):
            try installationID(segments[3])
            return .installation
        case (4, NamespacePaths.lastEvents, _):
            try lastEventID(segments[3])
            return .serverLastEvent
        case (6, NamespacePaths.agents, NamespacePaths.devices):
            try agentKey(segments[3])
            try installationID(segments[5])
            return .device
        case (6, NamespacePaths.agents, NamespacePaths.lastEvents):
            try agentKey(segments[3])
            try lastEventID(segments[5])
            return .agentLastEvent
        default:
            throw DumpError("no document of the layout lives at '\(path.rawValue.prefix(200))'")
        }
    }

    private static func require(_ condition: Bool, _ reason: @autoclosure () -> String) throws(DumpError) {
        guard condition else { throw DumpError(reason()) }
    }

    /// Checks a document's path and fields; returns its kind.
    @discardableResult
    public static func check(_ path: DocumentPath, _ fields: [String: JSONValue]) throws(DumpError) -> Kind {
        let kind = try kind(of: path)
        let rules = rules(for: kind)
        for name in fields.keys.sorted() {
            guard let rule = rules[name] else { throw DumpError("\(kind.name) has no field '\(name.prefix(80))'") }
            guard rule.type.accepts(fields[name]!) else {
                throw DumpError("\(kind.name)'s '\(name)' must be \(rule.type.name)")
            }
        }
        for (name, rule) in rules.sorted(by: { $0.key < $1.key }) where rule.required && fields[name] == nil {
            throw DumpError("\(kind.name) must have '\(name)'")
        }
        switch kind {
        case .agent:
            let cwd = fields[FieldName.cwd]!.stringValue!
            guard SHA256Hex.digest(of: cwd) == path.documentID else {
                throw DumpError("the agent key is not the SHA-256 of its cwd")
            }
        case .device:
            guard fields[FieldName.apnsToken] != nil || fields[FieldName.fcmToken] != nil else {
                throw DumpError("a device must have 'apnsToken' or 'fcmToken'")
            }
        default: break
        }
        return kind
    }

    /// 64 lower-case hex digits: a server or agent key, a hashed id.
    public static func isKey(_ text: String) -> Bool {
        text.utf8.count == 64 && Hex.bytes(text) != nil
    }

    static func isAPNsToken(_ text: String) -> Bool {
        (try? FieldRules.apnsToken(text)) == text
    }

    static func isFCMToken(_ text: String) -> Bool {
        (try? FieldRules.fcmToken(text)) != nil
    }

    static func isInstallationID(_ text: String) -> Bool {
        (try? FieldRules.installationID(text)) != nil
    }

    /// `{type}` or `{type}-{sha256(orderingKey)}`.
    static func isLastEventID(_ text: String) -> Bool {
        guard let dash = text.firstIndex(of: "-") else { return EventType(rawValue: text) != nil }
        return EventType(rawValue: String(text[..<dash])) != nil && isKey(String(text[text.index(after: dash)...]))
    }
}
