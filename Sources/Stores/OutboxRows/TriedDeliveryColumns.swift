import PushgateCore

extension TriedDelivery {
    /// When a retry falls due, in milliseconds as stored; `nil`: due since the
    /// notification was accepted (finished, or not tried).
    public var retryAt: Int64? {
        guard case .retry(_, let at) = change else { return nil }
        return OutboxRows.milliseconds(at)
    }
}
