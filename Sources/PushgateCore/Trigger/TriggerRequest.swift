import Foundation

/// A checked trigger, whichever function it came through: the event, when it
/// happened, how a repeat is recognised, and whether to wait for the first try.
public struct TriggerRequest: Sendable, Hashable {
    public var event: EventComposer.Event
    /// Older than (or as old as) the last event of its type already notified for the
    /// agent: skipped.
    public var occurredAt: Date?
    /// Unique per server within 24 h; `nil`: every call notifies.
    public var idempotencyKey: String?
    public var wait: Bool

    public init(event: EventComposer.Event, occurredAt: Date? = nil, idempotencyKey: String? = nil, wait: Bool = true) {
        self.event = event
        self.occurredAt = occurredAt
        self.idempotencyKey = idempotencyKey
        self.wait = wait
    }
}
