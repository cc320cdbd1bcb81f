/// Where a delivery stands.
public enum DeliveryState: String, Sendable, Hashable, CaseIterable {
    /// Waiting for its first or a next try.
    case pending
    case delivered
    /// Given up, with a reason.
    case failed
}
