import Foundation
import PushgateCore

/// How deliveries are tried, retried, kept and given up.
public struct DeliveryPolicy: Sendable, Hashable {
    /// A notification not delivered within this is given up (`apns-expiration` too).
    public var timeToLive: Duration = .seconds(86_400)
    /// Tries per delivery, the first one included, before it is given up.
    public var maxAttempts = 12
    /// Waits between tries: 0.5–1 s, 1–2 s, 2–4 s, … up to 2.5–5 min (see `RetryBackoff`),
    /// or longer when the push service says `Retry-After`.
    public var backoff = RetryBackoff(base: .seconds(1), cap: .seconds(300))
    /// How long a worker holds deliveries it claimed; it renews the lease while it
    /// sends, so a crashed worker's deliveries are taken over this long after it
    /// died, at the latest.
    public var lease: Duration = .seconds(15)
    /// How long a trigger waits for its first attempt before answering with what is
    /// still pending (`PUSHGATE_TRIGGER_WAIT`).
    public var triggerWait: Duration = .seconds(2)
    /// The most devices a trigger's answer lists one by one
    /// (`PUSHGATE_ANSWER_MAX_DEVICES`); above, it gives the counts alone, and the
    /// agent's deliveries are made page by page while its first pushes go out
    /// (``OutboxExpansion``) rather than written whole before, so that the trigger
    /// answers within `triggerWait` however big the agent. (A coalesced event, an
    /// approval with an id, and one installation's event are always written whole.)
    public var answerMaxDevices = 1_000
    /// How long a repeated trigger (same idempotency key) is recognised.
    public var idempotencyWindow: Duration = .seconds(86_400)
    /// How long finished deliveries are kept before housekeeping deletes them.
    public var retention: Duration = .seconds(7 * 86_400)
    /// Bytes of room the store's disk keeps (`PUSHGATE_STORE_MIN_FREE_MB`): under it the
    /// oldest finished deliveries go before their retention period
    /// (``LowSpacePruning``, SQLite only); `nil`: never.
    public var minimumStoreRoom: Int64? = 256 << 20
    /// The most deliveries a worker holds at once: the rest wait on disk.
    public var claimLimit = 2_000
    /// How long, at shutdown, sends in flight may take to finish.
    public var shutdownGrace: Duration = .seconds(10)
    /// When an unresolved approval is reminded, after its first push
    /// (`PUSHGATE_ESCALATION_SCHEDULE`): "Still waiting: …", then "Reminder: …".
    public var escalation: [Duration] = [.seconds(15 * 60), .seconds(3600)]
    /// When set (`PUSHGATE_COALESCE_WINDOW`), events of one type for one agent (but
    /// approvals) wait this long from the first of them and go out as one push
    /// ("3 replies ready"). Off by default: each event is pushed at once.
    public var coalesceWindow: Duration? = nil
    /// When set (`PUSHGATE_AT_KEYBOARD_WINDOW`), an agent's replies and other events
    /// that can wait are held back for this long after its hook saw its person at
    /// the keyboard (issue 75). Off by default.
    public var atKeyboardWindow: Duration? = nil
    /// Whether what can wait waits in the outbox until an installation's quiet hours
    /// end (`PUSHGATE_QUIET_HOURS=hold`) rather than going out passive (issue 75).
    public var holdsInQuietHours = false
    /// Whether a reply whose caller does not send `include_preview` shows its text
    /// (`PUSHGATE_PREVIEW_DEFAULT`: seed 003 shows it).
    public var showsPreviewByDefault = true
    /// How agents' Live Activities are driven: at most one progress update per
    /// `updateInterval` (`PUSHGATE_ACTIVITY_UPDATE_INTERVAL`), the end's dismissal.
    public var activity = LiveActivityRules()
    /// Devices not registered again for this long are deleted by the daily sweep,
    /// then agents and servers left empty (`PUSHGATE_STALE_DEVICE_DAYS`); `nil`: never.
    public var staleDeviceAge: Duration? = .seconds(90 * 86_400)
    /// How often an idle worker looks for due retries.
    public var pollInterval: Duration = .milliseconds(500)
    /// Chunks of a fan-out, and how many go out at once (500 and 4: tests make
    /// them smaller to see many chunks).
    public var fanOut = FanOut()

    public init() {}

    /// The settings a trigger's plan uses, with the installed services' carrier of
    /// Live Activities.
    package func triggerRules(_ formats: PushAddressFormats) -> TriggerRules {
        var rules = TriggerRules(
            timeToLive: timeToLive.seconds, idempotencyWindow: idempotencyWindow.seconds,
            coalesceWindow: coalesceWindow?.seconds, escalation: escalation.map(\.seconds),
            showsPreviewByDefault: showsPreviewByDefault)
        rules.activity = activity
        rules.activity.carrier = formats.liveActivities
        rules.atKeyboardWindow = atKeyboardWindow?.seconds
        rules.holdsInQuietHours = holdsInQuietHours
        return rules
    }

    /// The change to record for a try that did not deliver (`reason`, with the
    /// service's `Retry-After` if any), after `attempts` tries in all.
    func afterFailedTry(
        reason: String,
        retryAfter: Duration?,
        attempts: Int,
        now: Date,
        expiresAt: Date,
        jitter: Double
    ) -> DeliveryUpdate.Change {
        guard attempts < maxAttempts else { return .failed(reason: reason, removed: false) }
        let wait = backoff.delay(afterAttempt: attempts, retryAfter: retryAfter, jitter: jitter)
        let next = now.addingTimeInterval(wait.seconds)
        guard next < expiresAt else { return .failed(reason: reason, removed: false) }
        return .retry(reason: reason, at: next)
    }
}
