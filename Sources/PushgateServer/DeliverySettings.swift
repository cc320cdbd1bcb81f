import Foundation
import PushgateFunctions

/// The delivery settings as given (flags or `PUSHGATE_*`), before they are checked.
public struct DeliverySettings: Sendable, Hashable {
    /// Seconds a trigger waits for its first try (`PUSHGATE_TRIGGER_WAIT`).
    public var triggerWait: String?
    /// Tries per delivery before it is given up (`PUSHGATE_DELIVERY_MAX_ATTEMPTS`).
    public var maxAttempts: String?
    /// Seconds a worker holds what it claimed (`PUSHGATE_OUTBOX_LEASE`).
    public var lease: String?
    /// Days finished deliveries are kept (`PUSHGATE_OUTBOX_RETENTION_DAYS`).
    public var retentionDays: String?
    /// Seconds sends in flight get at shutdown (`PUSHGATE_SHUTDOWN_GRACE`).
    public var shutdownGrace: String?

    public init(
        triggerWait: String? = nil,
        maxAttempts: String? = nil,
        lease: String? = nil,
        retentionDays: String? = nil,
        shutdownGrace: String? = nil
    ) {
        self.triggerWait = triggerWait
        self.maxAttempts = maxAttempts
        self.lease = lease
        self.retentionDays = retentionDays
        self.shutdownGrace = shutdownGrace
    }

    /// The checked policy; `timeToLive` is APNs's (`PUSHGATE_APNS_TTL`) when configured.
    public func policy(timeToLive: Duration?) throws(ConfigurationError) -> DeliveryPolicy {
        var policy = DeliveryPolicy()
        if let timeToLive { policy.timeToLive = timeToLive }
        policy.triggerWait = try seconds(triggerWait, "PUSHGATE_TRIGGER_WAIT", in: 0...600) ?? policy.triggerWait
        if let attempts = try number(maxAttempts, "PUSHGATE_DELIVERY_MAX_ATTEMPTS", in: 1...100) {
            policy.maxAttempts = attempts
        }
        policy.lease = try seconds(lease, "PUSHGATE_OUTBOX_LEASE", in: 1...3600) ?? policy.lease
        if let days = try number(retentionDays, "PUSHGATE_OUTBOX_RETENTION_DAYS", in: 1...3650) {
            policy.retention = .seconds(days * 86_400)
        }
        policy.shutdownGrace =
            try seconds(shutdownGrace, "PUSHGATE_SHUTDOWN_GRACE", in: 0...600) ?? policy.shutdownGrace
        return policy
    }

    private func seconds(_ value: String?, _ name: String, in range: ClosedRange<Double>) throws(ConfigurationError)
        -> Duration?
    {
        guard let value, !value.isEmpty else { return nil }
        guard let seconds = Double(value), range.contains(seconds) else {
            throw ConfigurationError(
                "\(name) must be seconds from \(range.lowerBound) to \(range.upperBound), not '\(value)'")
        }
        return .milliseconds(Int64(seconds * 1000))
    }

    private func number(_ value: String?, _ name: String, in range: ClosedRange<Int>) throws(ConfigurationError) -> Int?
    {
        guard let value, !value.isEmpty else { return nil }
        guard let number = Int(value), range.contains(number) else {
            throw ConfigurationError(
                "\(name) must be a number from \(range.lowerBound) to \(range.upperBound), not '\(value)'")
        }
        return number
    }
}
