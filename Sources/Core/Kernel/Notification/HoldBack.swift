import Foundation

/// Why a push was held back from an installation (issue 75), as `eventStatus` names
/// it in the installation's timeline: nothing held back is lost without a word.
///
/// Only what can wait is held back — a reply, a run's end, a custom event; never an
/// approval or a question (``EventType/waitsOnThePerson``, an answerable event), and
/// never a Live Activity's push. The rules fail open: without a fresh word from the
/// app or the hook, the push goes.
public enum HoldBack: String, Sendable, Hashable, Codable, CaseIterable {
    /// The installation's app shows the agent's chat in the foreground (`appState`):
    /// a silent update goes instead of the banner, for the app to show in the chat;
    /// where the service allows no push that shows nothing (Web Push), none goes.
    case inApp = "in_app"
    /// The person was at the agent's own keyboard within `PUSHGATE_AT_KEYBOARD_WINDOW`
    /// (a prompt typed, a permission answered at the terminal): nothing goes.
    case atKeyboard = "at_keyboard"
    /// The installation's quiet hours, with `PUSHGATE_QUIET_HOURS=hold`: it waits in
    /// the outbox until they end.
    case quietHours = "quiet_hours"
    /// The installation's quiet hours (`PUSHGATE_QUIET_HOURS=passive`, the default):
    /// sent at once, passive — no sound, no banner, only listed.
    case quietHoursPassive = "quiet_hours_passive"

    /// The reason a timeline and a trigger's answer give.
    public var reason: String { self == .quietHoursPassive ? HoldBack.quietHours.rawValue : rawValue }

    /// Whether the event's own push did not go (`suppressed` in the timeline): all
    /// but a passive one in quiet hours, which went, quietly.
    public var suppresses: Bool { self != .quietHoursPassive }

    /// What the twin's send is, in the timeline: a silent update, a passive push, the
    /// push the quiet hours held; nothing for what was not sent at all.
    public var sentAs: String? {
        switch self {
        case .inApp: "silent_update"
        case .quietHoursPassive: "passive"
        case .quietHours: "after_quiet_hours"
        case .atKeyboard: nil
        }
    }

    /// Whether an event may be held back at all.
    public static func applies(to event: EventComposer.Event) -> Bool {
        !event.type.waitsOnThePerson && !event.answerable && !event.type.drivesActivityOnly
    }

    /// How long an app's word that it shows a chat holds (`appState`): it says so
    /// again while it does.
    public static let foregroundValidity: TimeInterval = 60
}
