/// Where a delivery stands.
public enum DeliveryState: String, Sendable, Hashable, CaseIterable {
    /// Waiting for its first or a next try.
    case pending
    case delivered
    /// Given up, with a reason.
    case failed
    /// Withdrawn before it was made: the device unsubscribed or its installation
    /// logged out (``DeliveryWithdrawal``).
    case cancelled
}
