import Foundation
import PushgateDelivery
import PushgateFunctions

/// The delivery settings as given (flags or `PUSHGATE_*`), before they are checked.
public struct DeliverySettings: Sendable, Hashable {
    /// Seconds a trigger waits for its first try (`PUSHGATE_TRIGGER_WAIT`).
    public var triggerWait: String?
    /// Devices a trigger's answer lists one by one (`PUSHGATE_ANSWER_MAX_DEVICES`).
    public var answerMaxDevices: String?
    /// Tries per delivery before it is given up (`PUSHGATE_DELIVERY_MAX_ATTEMPTS`).
    public var maxAttempts: String?
    /// Seconds a worker holds what it claimed (`PUSHGATE_OUTBOX_LEASE`).
    public var lease: String?
    /// Days finished deliveries are kept (`PUSHGATE_OUTBOX_RETENTION_DAYS`).
    public var retentionDays: String?
    /// MB of room the SQLite store's disk keeps, `0` off (`PUSHGATE_STORE_MIN_FREE_MB`).
    public var storeMinFreeMB: String?
    /// Seconds sends in flight get at shutdown (`PUSHGATE_SHUTDOWN_GRACE`).
    public var shutdownGrace: String?
    /// When unresolved approvals are reminded, e.g. `15m,1h` (`PUSHGATE_ESCALATION_SCHEDULE`).
    public var escalationSchedule: String?
    /// Seconds in which events of one type for one agent go out as one push, or
    /// `off` (`PUSHGATE_COALESCE_WINDOW`).
    public var coalesceWindow: String?
    /// `show` or `hide`: a reply's preview when its caller does not say (`PUSHGATE_PREVIEW_DEFAULT`).
    public var previewDefault: String?
    /// Days after which a device not registered again is swept, `0` never
    /// (`PUSHGATE_STALE_DEVICE_DAYS`).
    public var staleDeviceDays: String?

    public init(
        triggerWait: String? = nil,
        answerMaxDevices: String? = nil,
        maxAttempts: String? = nil,
        lease: String? = nil,
        retentionDays: String? = nil,
        storeMinFreeMB: String? = nil,
        shutdownGrace: String? = nil,
        escalationSchedule: String? = nil,
        coalesceWindow: String? = nil,
        previewDefault: String? = nil,
        staleDeviceDays: String? = nil
    ) {
        self.triggerWait = triggerWait
        self.answerMaxDevices = answerMaxDevices
        self.maxAttempts = maxAttempts
        self.lease = lease
        self.retentionDays = retentionDays
        self.storeMinFreeMB = storeMinFreeMB
        self.shutdownGrace = shutdownGrace
        self.escalationSchedule = escalationSchedule
        self.coalesceWindow = coalesceWindow
        self.previewDefault = previewDefault
        self.staleDeviceDays = staleDeviceDays
    }

    /// The checked policy; `timeToLive` is APNs's (`PUSHGATE_APNS_TTL`) when configured.
    public func policy(timeToLive: Duration?) throws(ConfigurationError) -> DeliveryPolicy {
        var policy = DeliveryPolicy()
        if let timeToLive { policy.timeToLive = timeToLive }
        policy.triggerWait = try seconds(triggerWait, "PUSHGATE_TRIGGER_WAIT", in: 0...600) ?? policy.triggerWait
        if let limit = try number(answerMaxDevices, "PUSHGATE_ANSWER_MAX_DEVICES", in: 0...100_000) {
            policy.answerMaxDevices = limit
        }
        if let attempts = try number(maxAttempts, "PUSHGATE_DELIVERY_MAX_ATTEMPTS", in: 1...100) {
            policy.maxAttempts = attempts
        }
        policy.lease = try seconds(lease, "PUSHGATE_OUTBOX_LEASE", in: 1...3600) ?? policy.lease
        if let days = try number(retentionDays, "PUSHGATE_OUTBOX_RETENTION_DAYS", in: 1...3650) {
            policy.retention = .seconds(days * 86_400)
        }
        if let megabytes = try number(storeMinFreeMB, "PUSHGATE_STORE_MIN_FREE_MB", in: 0...10_000_000) {
            policy.minimumStoreRoom = megabytes == 0 ? nil : Int64(megabytes) << 20
        }
        policy.shutdownGrace =
            try seconds(shutdownGrace, "PUSHGATE_SHUTDOWN_GRACE", in: 0...600) ?? policy.shutdownGrace
        if let escalationSchedule { policy.escalation = try schedule(escalationSchedule) }
        let window = coalesceWindow?.trimmingCharacters(in: .whitespaces) ?? ""
        if !["", "0", "off"].contains(window) {
            policy.coalesceWindow = try seconds(
                window.hasSuffix("s") ? String(window.dropLast()) : window, "PUSHGATE_COALESCE_WINDOW", in: 0.1...300)
        }
        switch previewDefault?.trimmingCharacters(in: .whitespaces).lowercased() {
        case nil, "", "show": policy.showsPreviewByDefault = true
        case "hide": policy.showsPreviewByDefault = false
        case let other?: throw ConfigurationError("PUSHGATE_PREVIEW_DEFAULT must be show or hide, not '\(other)'")
        }
        if let days = try number(staleDeviceDays, "PUSHGATE_STALE_DEVICE_DAYS", in: 0...3650) {
            policy.staleDeviceAge = days == 0 ? nil : .seconds(days * 86_400)
        }
        return policy
    }

    /// `15m,1h`: increasing offsets with `s`, `m` or `h`, at most five; `none` or empty: no reminders.
    private func schedule(_ text: String) throws(ConfigurationError) -> [Duration] {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty || trimmed == "none" { return [] }
        var offsets: [Duration] = []
        for part in trimmed.split(separator: ",") {
            let item = part.trimmingCharacters(in: .whitespaces)
            let unit: Int64? =
                switch item.last {
                case "s": 1
                case "m": 60
                case "h": 3600
                default: nil
                }
            guard let unit, let number = Int64(item.dropLast()), number > 0,
                offsets.last.map({ .seconds(number * unit) > $0 }) ?? true
            else {
                throw ConfigurationError(
                    "PUSHGATE_ESCALATION_SCHEDULE must be increasing times like 15m,1h (s, m or h), at most five, or none; not '\(text)'"
                )
            }
            offsets.append(.seconds(number * unit))
        }
        guard offsets.count <= 5 else {
            throw ConfigurationError("PUSHGATE_ESCALATION_SCHEDULE allows at most five reminders, not \(offsets.count)")
        }
        return offsets
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
