import Foundation

/// How urgently each event type's push asks for the person (issue 75): its
/// interruption level (APNs `aps.interruption-level`: `passive` lists it without
/// lighting the screen, `active` is APNs's default, `time-sensitive` breaks through a
/// Focus), its relevance score (APNs `aps.relevance-score`, 0 to 1: the order of the
/// notification summary, the highest featured) and its Web Push `Urgency` (how soon
/// a browser on battery wakes for it). One table, the same for every push service;
/// `PUSHGATE_EVENT_URGENCY` (per app `event_urgency:`) changes rows of it. A
/// caller's own `interruption_level` wins over its type's; a passive push (quiet
/// hours) plays no sound and goes at `low` urgency; a badge update and a Live
/// Activity's push keep their own.
public struct EventUrgencies: Sendable, Hashable {
    /// One row.
    public struct Urgency: Sendable, Hashable {
        public var interruptionLevel: String
        public var relevanceScore: Double
        public var pushUrgency: PushUrgency

        public init(_ interruptionLevel: String, _ relevanceScore: Double, _ pushUrgency: PushUrgency) {
            self.interruptionLevel = interruptionLevel
            self.relevanceScore = relevanceScore
            self.pushUrgency = pushUrgency
        }
    }

    /// The rows by event type (`reply_finished`, a custom name).
    public private(set) var rows: [String: Urgency]
    /// Any other type's: a custom event's.
    public private(set) var other: Urgency

    /// What waits on the person first (an approval, a question), then what went
    /// wrong, then what is done; the hook's `waiting_for_input` between them.
    public static let defaults = EventUrgencies(
        rows: [
            EventType.approvalRequested.rawValue: Urgency("time-sensitive", 1, .high),
            EventType.questionAsked.rawValue: Urgency("time-sensitive", 0.9, .high),
            EventType.runFailed.rawValue: Urgency("active", 0.8, .normal),
            EventType.replyFinished.rawValue: Urgency("active", 0.7, .normal),
            "waiting_for_input": Urgency("active", 0.6, .normal),
            EventType.runCompleted.rawValue: Urgency("active", 0.5, .normal),
        ],
        other: Urgency("active", 0.4, .normal))

    /// The interruption levels a row may name.
    public static let interruptionLevels: Set = ["passive", "active", "time-sensitive"]

    /// The row of `type` (a push's `data.type`).
    public func urgency(of type: String?) -> Urgency {
        type.flatMap { rows[$0] } ?? other
    }

    /// `notification` as its type's row sends it: its interruption level unless its
    /// caller named one (a passive one plays no sound), its relevance score, its Web
    /// Push urgency. `active`, APNs's default, is not written.
    public func applied(to notification: PushNotification) -> PushNotification {
        guard !notification.isBadgeUpdate, notification.liveActivity == nil else { return notification }
        let row = urgency(of: notification.data["type"]?.stringValue)
        var urgent = notification
        if urgent.interruptionLevel == nil, row.interruptionLevel != "active" {
            urgent.interruptionLevel = row.interruptionLevel
        }
        urgent.relevanceScore = row.relevanceScore
        urgent.urgency = row.pushUrgency
        if urgent.interruptionLevel == "passive" {
            // Nothing to hear, nothing to wake for.
            urgent.sound = ""
            if urgent.urgency == .normal || urgent.urgency == .high { urgent.urgency = .low }
        }
        return urgent
    }

    /// The defaults with `changes` (`type=level/score/urgency`, comma-separated) over
    /// them, or what is wrong with the first row that does not read.
    public static func reading(_ changes: String) -> Result<EventUrgencies, SettingProblem> {
        var table = defaults
        for row in changes.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) })
        where !row.isEmpty {
            let parts = row.split(separator: "=", maxSplits: 1).map(String.init)
            let fields = parts.count == 2 ? parts[1].split(separator: "/").map(String.init) : []
            guard parts.count == 2, fields.count == 3, let type = EventType(rawValue: parts[0]),
                !type.drivesActivityOnly, interruptionLevels.contains(fields[0]),
                let score = Double(fields[1]), (0...1).contains(score), let urgency = PushUrgency(rawValue: fields[2])
            else {
                return .failure(
                    .mustBe(
                        "rows of type=level/score/urgency (level passive, active or time-sensitive; score 0 to 1; urgency very-low, low, normal or high), comma-separated",
                        not: String(row.prefix(80))))
            }
            table.rows[type.rawValue] = Urgency(fields[0], score, urgency)
        }
        return .success(table)
    }

    /// The setting, which may be given per app.
    public static let settings: [AnySetting] = [Setting<EventUrgencies>.eventUrgency.erased]

    /// One app's table (the gateway's setting, or the app's over it).
    public static func read(from settings: some SettingReading) throws(ConfigurationError) -> EventUrgencies {
        try settings.optional(.eventUrgency) ?? defaults
    }
}

extension Setting {
    public static var eventUrgency: Setting<EventUrgencies> {
        Setting<EventUrgencies>(
            "event_urgency", default: "",
            "Rows of the event types' urgency table to change: type=level/score/urgency, comma-separated (see the README)."
        ) { EventUrgencies.reading($0) }
    }
}
