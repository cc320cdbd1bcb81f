/// How many deliveries of a notification share a state, a last reason and whether
/// their device was removed: what a trigger's answer counts, without a row per
/// device (an agent may have a million).
public struct DeliveryTally: Sendable, Hashable {
    public let state: DeliveryState
    public let lastReason: String?
    public let removed: Bool
    public let count: Int

    public init(state: DeliveryState, lastReason: String?, removed: Bool, count: Int) {
        self.state = state
        self.lastReason = lastReason
        self.removed = removed
        self.count = count
    }

    /// The tallies of `statuses`.
    public static func of(_ statuses: [ReportedDelivery]) -> [DeliveryTally] {
        struct Key: Hashable {
            let state: DeliveryState
            let lastReason: String?
            let removed: Bool
        }
        var counts: [Key: Int] = [:]
        for status in statuses {
            counts[Key(state: status.state, lastReason: status.lastReason, removed: status.removed), default: 0] += 1
        }
        return counts.map { DeliveryTally(state: $0.state, lastReason: $0.lastReason, removed: $0.removed, count: $1) }
    }
}
