import Foundation
import PushgateCore
import PushgateLiveActivity
import PushgateSealing

/// The documents `store/LAYOUT.md` allows, as rules an import checks each record
/// against: where a document may live (its path and the form of each key), which
/// fields it may have, of which type, and which it must have.
public enum DocumentLayout {
    /// What a path names.
    public enum Kind: String, Sendable {
        case server, source, agent, device, agentLastEvent, serverLastEvent, event, installation, pairing, message

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
            case .pairing: "a pairing"
            case .message: "a message to an agent"
            }
        }
    }

    /// The type a field's value must have, and the rules a request's value for it
    /// meets: a record is stored only as a call could have stored it.
    enum FieldType {
        /// Any time from 0001 to 9999 (an expiry, a reminder: the future is theirs).
        case timestamp
        /// A time something happened: besides, no further ahead of the importing
        /// clock than a request's time may be (one in year 9999 would order every
        /// later event before it, for good).
        case pastTimestamp
        /// An address of a push service, as its module stores it.
        case pushAddress(PushAddressFormat)
        case trueFlag, anything
        /// An APNs-style token (a Live Activity's): 64 to 200 lower-case hex digits.
        case hexToken
        /// An agent's run as its Live Activity shows it: an `AgentRunContentState`.
        case activityState
        /// Whole seconds since 1970, not negative.
        case seconds
        /// A whole number from 0: a counter.
        case count
        /// The keys a device's pushes are sealed for, as `registerSubscription` stores
        /// them: `{"p256dh", "auth"}`, base64url without padding.
        case payloadKeys
        /// A phone's decision key: an uncompressed P-256 point, base64url without padding.
        case decisionKey
        /// An installation's quiet hours, as a registration stores them (``QuietHours``).
        case quietHours
        /// A pairing's phones, as `completePairing` stores them (issue 82).
        case pairingCompletions
        case oneOf(Set<String>)
        /// One-line text (no control, bidirectional or separator character) of
        /// `characters` characters, as a request's field of that name.
        case text(characters: ClosedRange<Int>)
        /// Text that may span lines (a person's answer), as a request's multi-line field.
        case message(characters: ClosedRange<Int>)
        /// The agent's working directory: as `registerSubscription` takes it.
        case cwd
        /// An event type: reply_finished, approval_requested, … or 1 to 40 of a-z, 0-9, _.
        case eventType
        /// A row id (a notification's): 1 to 128 visible ASCII characters.
        case identifier
        /// A key (64 lower-case hex digits), or `*` for the whole server.
        case keyOrEveryone
        /// An array of row ids (1 to 128 visible ASCII), of keys, of installation
        /// ids, of times.
        case identifiers, keys, installationIDs, timestamps

        /// Why `value` may not be field `name` of a document, if it may not.
        func refusal(of value: JSONValue, name: String, now: Date) -> String? {
            switch self {
            case .timestamp, .pastTimestamp:
                guard let date = value.stringValue.flatMap(RFC3339.parse) else { return "must be \(description)" }
                if case .pastTimestamp = self, date.timeIntervalSince(now) > RequestFields.maxClockSkew {
                    return "is more than \(Int(RequestFields.maxClockSkew / 60)) minutes ahead of this clock"
                }
                return nil
            case .text(let characters):
                guard let text = value.stringValue, characters.contains(text.count) else {
                    return "must be \(description)"
                }
                return Self.apiRefusal { () throws(FunctionError) in try FieldRules.printable(text, field: name) }
            case .message(let characters):
                guard let text = value.stringValue, characters.contains(text.count) else {
                    return "must be \(description)"
                }
                return Self.apiRefusal { () throws(FunctionError) in
                    try FieldRules.printable(text, field: name, multiline: true)
                }
            case .cwd:
                guard let text = value.stringValue else { return "must be \(description)" }
                return Self.apiRefusal { () throws(FunctionError) in
                    try FieldRules.printable(FieldRules.cwd(text, field: name), field: name)
                }
            case .timestamps:
                let items = value.arrayValue
                return items?.allSatisfy({ Self.timestamp.refusal(of: $0, name: name, now: now) == nil }) == true
                    ? nil : "must be \(description)"
            default:
                return accepts(value) ? nil : "must be \(description)"
            }
        }

        private func accepts(_ value: JSONValue) -> Bool {
            switch self {
            case .pushAddress(let format): value.stringValue.map(format.isStored) ?? false
            case .trueFlag: value == .bool(true)
            case .hexToken: value.stringValue.map { (try? FieldRules.hexToken($0, field: "")) == $0 } ?? false
            case .activityState: AgentRunContentState(json: value) != nil
            case .seconds, .count:
                if case .number(let seconds) = value { seconds >= 0 && Int(exactly: seconds) != nil } else { false }
            case .payloadKeys:
                if case .sealed(let keys)? = PayloadSealing(field: value) {
                    PayloadSealing.field(keys) == value
                } else {
                    false
                }
            case .decisionKey: value.stringValue.map { DecisionKey($0)?.text == $0 } ?? false
            case .quietHours: QuietHours(stored: value)?.stored == value
            case .pairingCompletions: Self.isPairingCompletions(value)
            case .anything: true
            case .oneOf(let allowed): value.stringValue.map(allowed.contains) ?? false
            case .eventType: value.stringValue.flatMap(EventType.init(rawValue:)) != nil
            case .identifier: value.stringValue.map(DumpRow.isIdentifier) ?? false
            case .keyOrEveryone: value.stringValue.map { $0 == OutboxNotification.everyAgent || isKey($0) } ?? false
            case .identifiers: Self.all(value, DumpRow.isIdentifier)
            case .keys: Self.all(value, DocumentLayout.isKey)
            case .installationIDs: Self.all(value, DocumentLayout.isInstallationID)
            case .timestamp, .pastTimestamp, .text, .message, .cwd, .timestamps: false
            }
        }

        private static func all(_ value: JSONValue, _ rule: (String) -> Bool) -> Bool {
            value.arrayValue?.allSatisfy { $0.stringValue.map(rule) ?? false } ?? false
        }

        /// The message a request would have been refused with, if it would.
        private static func apiRefusal(_ check: () throws(FunctionError) -> Void) -> String? {
            do {
                try check()
                return nil
            } catch {
                // "'cwd' must not …": the field leads the message, as it follows the kind here.
                return String(error.message.drop(while: { $0 != " " }).dropFirst())
            }
        }

        var description: String {
            switch self {
            case .timestamp, .pastTimestamp:
                "an RFC 3339 timestamp from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z"
            case .pushAddress(let format): format.storedForm
            case .trueFlag: "true"
            case .hexToken: "64 to 200 lower-case hex digits"
            case .activityState: "a Live Activity's content state (phase, startedAt, updatedAt, …)"
            case .seconds: "a whole number of seconds since 1970"
            case .count: "a whole number from 0"
            case .payloadKeys: #"{"p256dh", "auth"}: a P-256 point (65 bytes) and 16 bytes, base64url without padding"#
            case .decisionKey: "an uncompressed P-256 public key (65 bytes), base64url without padding"
            case .quietHours: #"{"from": "HH:MM", "to": "HH:MM", "timeZone": "<IANA zone>"}, from and to differing"#
            case .pairingCompletions: Self.pairingCompletionsForm
            case .anything: "any value"
            case .oneOf(let allowed): allowed.sorted().map { "\"\($0)\"" }.joined(separator: " or ")
            case .text(let characters), .message(let characters):
                "a string of \(characters.lowerBound) to \(characters.upperBound) characters"
            case .cwd: "a string of 1 to 1024 bytes"
            case .eventType: "an event type (1 to 40 of a-z, 0-9 and _, starting with a letter)"
            case .identifier: "1 to 128 visible ASCII characters"
            case .keyOrEveryone: "64 lower-case hex digits or '*'"
            case .identifiers: "an array of ids of 1 to 128 visible ASCII characters"
            case .keys: "an array of 64 lower-case hex digits each"
            case .installationIDs: "an array of installation ids"
            case .timestamps: "an array of RFC 3339 timestamps from 0001 to 9999"
            }
        }
    }

    /// A field's rule: its type, and whether every document of its kind has it.
    struct FieldRule {
        let type: FieldType
        let required: Bool
    }

    /// The fields a document of `kind` may have; a device's addresses, those of
    /// `formats`.
    static func rules(for kind: Kind, formats: PushAddressFormats) -> [String: FieldRule] {
        func required(_ type: FieldType) -> FieldRule { FieldRule(type: type, required: true) }
        func optional(_ type: FieldType) -> FieldRule { FieldRule(type: type, required: false) }
        switch kind {
        case .server:
            return [FieldName.createdAt: required(.pastTimestamp), FieldName.lastSeenAt: optional(.pastTimestamp)]
        case .source:
            return [
                FieldName.source: required(.text(characters: 1...128)), FieldName.createdAt: required(.pastTimestamp),
                FieldName.lastSeenAt: required(.pastTimestamp),
            ]
        case .agent:
            return [
                FieldName.cwd: required(.cwd), FieldName.agentDisplayName: optional(.text(characters: 1...200)),
                FieldName.createdAt: required(.pastTimestamp), FieldName.updatedAt: required(.pastTimestamp),
                FieldName.lastTriggeredAt: optional(.pastTimestamp),
                FieldName.activityState: optional(.activityState),
                FieldName.activityEndedAt: optional(.pastTimestamp),
                FieldName.atKeyboardAt: optional(.pastTimestamp),
                FieldName.messagesReceived: optional(.count),
            ]
        case .device:
            let addresses = formats.all.map { ($0.documentField, optional(.pushAddress($0))) }
            let environments = formats.all.compactMap(\.environments).flatMap { environments in
                [
                    (environments.documentField, optional(.oneOf(Set(environments.all.map(\.rawValue))))),
                    (environments.learnedField, optional(.trueFlag)),
                ]
            }
            return [
                FieldName.platform: required(.oneOf(["ios", "ipados", "macos", "android", "web"])),
                FieldName.appVersion: optional(.text(characters: 0...100)),
                FieldName.bundleID: optional(.text(characters: 0...100)),
                FieldName.payloadKeys: optional(.payloadKeys),
                FieldName.decisionKey: optional(.decisionKey),
                FieldName.deviceName: optional(.text(characters: 1...64)),
                FieldName.activityStartToken: optional(.hexToken), FieldName.activityToken: optional(.hexToken),
                FieldName.activityRunID: optional(.text(characters: 1...128)),
                FieldName.activityRegisteredAt: optional(.pastTimestamp),
                FieldName.activitySentAt: optional(.seconds),
                // Minutes ahead at most: an app's state lasts a minute.
                FieldName.foregroundUntil: optional(.timestamp),
                FieldName.quietHours: optional(.quietHours),
                FieldName.createdAt: required(.pastTimestamp), FieldName.updatedAt: required(.pastTimestamp),
            ].merging(addresses + environments) { general, _ in general }
        case .agentLastEvent, .serverLastEvent:
            return [FieldName.lastOccurredAt: required(.pastTimestamp)]
        case .event:
            return [
                FieldName.eventID: required(.text(characters: 1...200)), FieldName.agentKey: required(.keyOrEveryone),
                FieldName.type: required(.eventType), FieldName.notificationID: required(.identifier),
                FieldName.reminderNotificationIDs: required(.identifiers),
                FieldName.remindersDueAt: optional(.timestamps),
                FieldName.badgedInstallations: optional(.installationIDs),
                // Written before badges were counted per installation; no longer read.
                "countedInstallations": optional(.anything),
                FieldName.expiresAt: optional(.timestamp), FieldName.createdAt: required(.pastTimestamp),
                FieldName.resolvedAt: optional(.pastTimestamp),
                FieldName.resolution: optional(.text(characters: 1...100)),
                // Decided or answered from a phone (issues 73, 74), with its proof.
                FieldName.decision: optional(.oneOf(Set(SignedDecision.Decision.allCases.map(\.rawValue)))),
                FieldName.decidedBy: optional(.text(characters: 1...128)),
                FieldName.decidedAt: optional(.pastTimestamp),
                FieldName.decisionMessage: optional(.message(characters: 1...SignedDecision.maxAnswerCharacters)),
                FieldName.decisionSignedAt: optional(.seconds),
                FieldName.decisionSignature: optional(.text(characters: 86...88)),
                FieldName.decisionKeyUsed: optional(.decisionKey),
                FieldName.answerable: optional(.trueFlag),
                FieldName.allowAlways: optional(.text(characters: 1...200)),
                FieldName.decisionSuggestion: optional(.count),
                FieldName.answerableBy: optional(.installationIDs),
                FieldName.unreadAnswerOf: optional(.keyOrEveryone),
            ]
        case .installation:
            return [FieldName.pendingApprovals: required(.keys), FieldName.updatedAt: required(.pastTimestamp)]
        case .pairing:
            return [
                FieldName.createdAt: required(.pastTimestamp), FieldName.expiresAt: required(.timestamp),
                FieldName.completions: required(.pairingCompletions),
            ]
        case .message:
            // Words a paired phone sent the agent (issue 84), with their proof.
            return [
                FieldName.eventID: required(.text(characters: 1...200)),
                FieldName.decidedBy: required(.text(characters: 1...128)),
                FieldName.decisionMessage: required(.message(characters: 1...SignedDecision.maxAnswerCharacters)),
                FieldName.decisionSignedAt: required(.seconds),
                FieldName.decisionSignature: required(.text(characters: 86...88)),
                FieldName.decisionKeyUsed: required(.decisionKey), FieldName.createdAt: required(.pastTimestamp),
            ]
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
        case (4, NamespacePaths.pairings, _):
            try require(
                segments[3].utf8.count == 32 && Hex.bytes(segments[3]) != nil,
                "a pairing's id must be 32 lower-case hex digits")
            return .pairing
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
        case (6, NamespacePaths.agents, NamespacePaths.messages):
            try agentKey(segments[3])
            try require(isKey(segments[5]), "a message's id must be the SHA-256 of its message id")
            return .message
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

    /// Checks a document's path and fields against the layout and the rules a
    /// request meets (a device's addresses, those of `formats`), times against `now`
    /// (the importing clock); returns its kind.
    @discardableResult
    public static func check(
        _ path: DocumentPath, _ fields: [String: JSONValue], formats: PushAddressFormats, now: Date = Date()
    ) throws(DumpError) -> Kind {
        let kind = try kind(of: path)
        let rules = rules(for: kind, formats: formats)
        for (name, value) in fields.sorted(by: { $0.key < $1.key }) {
            guard let rule = rules[name] else {
                throw DumpError("\(kind.name) has no field '\(InvisibleCharacters.escaped(String(name.prefix(80))))'")
            }
            if let refusal = rule.type.refusal(of: value, name: name, now: now) {
                throw DumpError("\(kind.name)'s '\(name)' \(refusal)")
            }
        }
        for (name, rule) in rules.sorted(by: { $0.key < $1.key }) where rule.required && fields[name] == nil {
            throw DumpError("\(kind.name) must have '\(name)'")
        }
        switch kind {
        case .agent:
            // The rules above made it a string.
            guard let cwd = fields[FieldName.cwd]?.stringValue, SHA256Hex.digest(of: cwd) == path.documentID else {
                throw DumpError("the agent key is not the SHA-256 of its cwd")
            }
        case .device:
            guard formats.documentFields.contains(where: { fields[$0] != nil }) else {
                throw DumpError("a device must have \(formats.documentFieldsInWords)")
            }
        default: break
        }
        return kind
    }

    /// 64 lower-case hex digits: a server or agent key, a hashed id.
    public static func isKey(_ text: String) -> Bool {
        text.utf8.count == 64 && Hex.bytes(text) != nil
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
