import Foundation

/// What a trigger's plan takes from the gateway's settings (`DeliveryPolicy`, which
/// holds their defaults).
public struct TriggerRules: Sendable, Hashable {
    /// A notification not delivered within this is given up.
    public var timeToLive: TimeInterval
    /// How long a repeated trigger (same idempotency key) is recognised.
    public var idempotencyWindow: TimeInterval
    /// When set, events of one type for one agent (but approvals) are held this long
    /// from the first of them and go out as one push.
    public var coalesceWindow: TimeInterval?
    /// When an unresolved approval is reminded, after its first push.
    public var escalation: [TimeInterval]
    /// Whether a reply whose caller does not say (`include_preview` absent) shows its
    /// preview (`PUSHGATE_PREVIEW_DEFAULT`).
    public var showsPreviewByDefault: Bool
    /// How long after its person was last at the agent's keyboard its replies are
    /// held back (`PUSHGATE_AT_KEYBOARD_WINDOW`, issue 75); `nil`: never.
    public var atKeyboardWindow: TimeInterval?
    /// In an installation's quiet hours, what can wait waits in the outbox until they
    /// end (`PUSHGATE_QUIET_HOURS=hold`); else it goes out passive.
    public var holdsInQuietHours = false
    /// How an agent's Live Activity is driven (issue 64).
    public var activity = LiveActivityRules()

    public init(
        timeToLive: TimeInterval,
        idempotencyWindow: TimeInterval,
        coalesceWindow: TimeInterval?,
        escalation: [TimeInterval],
        showsPreviewByDefault: Bool
    ) {
        self.timeToLive = timeToLive
        self.idempotencyWindow = idempotencyWindow
        self.coalesceWindow = coalesceWindow
        self.escalation = escalation
        self.showsPreviewByDefault = showsPreviewByDefault
    }
}
