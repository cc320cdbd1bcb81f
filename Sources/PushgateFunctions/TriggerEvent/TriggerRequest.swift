import Foundation
import PushgateCore

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

    /// Checks the `Idempotency-Key` header's value.
    static func checkedHeaderKey(_ key: String?) throws(FunctionError) -> String? {
        guard let key else { return nil }
        guard (1...255).contains(key.utf8.count), key.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw .invalidArgument(
                "the Idempotency-Key header must be 1 to 255 visible ASCII characters",
                field: "Idempotency-Key"
            )
        }
        return "header:" + key
    }
}
