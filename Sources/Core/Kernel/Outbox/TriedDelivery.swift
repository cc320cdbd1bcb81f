/// A delivery of an expansion's page as its first try left it: stored once, with
/// its outcome, after the try (see ``OutboxExpansions/storeTriedPage(_:of:owner:cursor:finished:leaseUntil:now:)``).
public struct TriedDelivery: Sendable, Hashable {
    public let delivery: OutboxDelivery
    /// What the try decided; `nil` when it was not tried (the fan-out stopped first,
    /// the gateway shutting down): stored due at once, for the next try.
    public let change: DeliveryUpdate.Change?
    /// The route to store: a learned one (``DeliveryUpdate/route``), else the delivery's.
    public let route: DeliveryRoute
    /// The service's name for the push (``DeliveryUpdate/messageID``).
    public let messageID: String?

    public init(
        _ delivery: OutboxDelivery, change: DeliveryUpdate.Change?, route: DeliveryRoute? = nil,
        messageID: String? = nil
    ) {
        self.delivery = delivery
        self.change = change
        self.route = route ?? delivery.route
        self.messageID = messageID
    }

    /// Where it stands once stored.
    public var state: DeliveryState {
        switch change {
        case .delivered: .delivered
        case .failed: .failed
        case .retry, nil: .pending
        }
    }

    /// Tries made: one, unless it was not tried.
    public var attempts: Int { change == nil ? 0 : 1 }

    /// Why it failed or waits for a retry.
    public var reason: String? {
        switch change {
        case .failed(let reason, _), .retry(let reason, _): reason
        case .delivered, nil: nil
        }
    }

    /// Whether its device document was deleted for a dead token.
    public var removed: Bool {
        if case .failed(_, let removed) = change { return removed }
        return false
    }
}
