import Foundation

/// A checked trigger, whichever function it came through: the event, when it
/// happened, how a repeat is recognised, which devices it reaches, and whether to
/// wait for the first try.
public struct TriggerRequest: Sendable, Hashable {
    /// Which earlier events a late one is compared with (the ordering guard): an
    /// event not newer than the last one notified in its scope is skipped.
    public enum Ordering: Sendable, Hashable {
        /// No guard: every event notifies (a reply with no conversation).
        case none
        /// The agent's events of the same type.
        case byType
        /// The agent's events of the same type with the same key (a reply's
        /// conversation): another key's events never make this one stale.
        case byKey(String)
    }

    public var event: EventComposer.Event
    /// When the event happened: with ``ordering``, what the guard compares.
    public var occurredAt: Date?
    public var ordering: Ordering
    /// Unique per server within 24 h; `nil`: every call notifies.
    public var idempotencyKey: String?
    /// Show the reply's preview (`include_preview`); `nil`: the gateway's default
    /// (`PUSHGATE_PREVIEW_DEFAULT`). Replies only.
    public var includePreview: Bool?
    public var selection: DeviceSelection
    public var wait: Bool
    /// The id the gateway made for an event whose caller gave none (issue 75): what
    /// its answer names and `eventStatus` finds it by; `nil` when the event has its own.
    public var madeEventID: String?
    /// The agent's person is at its keyboard now (`at_keyboard`: the hook saw a
    /// prompt typed or a permission answered at the terminal, issue 75): recorded on
    /// the agent, and the agent's replies for `PUSHGATE_AT_KEYBOARD_WINDOW` are held back.
    public var atKeyboard = false

    /// The id the event is looked up by: its own, else the one the gateway made.
    public var trackingID: String? { event.eventID ?? madeEventID }

    public init(
        event: EventComposer.Event,
        occurredAt: Date? = nil,
        ordering: Ordering = .byType,
        idempotencyKey: String? = nil,
        includePreview: Bool? = nil,
        selection: DeviceSelection = DeviceSelection(),
        wait: Bool = true
    ) {
        self.event = event
        self.occurredAt = occurredAt
        self.ordering = ordering
        self.idempotencyKey = idempotencyKey
        self.includePreview = includePreview
        self.selection = selection
        self.wait = wait
    }
}
