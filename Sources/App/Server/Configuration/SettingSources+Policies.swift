import Foundation
import PushgateCore
import PushgateDelivery
import PushgateFunctions

/// The policies the settings make: delivery, admission, rate limits, presence.
extension SettingSources {
    /// Outbox, retries, reminders, coalescing, shutdown; the time to live is APNs's
    /// (``GatewayConfiguration/setup()`` sets it once the push services are read).
    public func deliveryPolicy() throws(ConfigurationError) -> DeliveryPolicy {
        var policy = DeliveryPolicy()
        policy.triggerWait = try value(.triggerWait)
        policy.answerMaxDevices = try value(.answerMaxDevices)
        policy.maxAttempts = try value(.deliveryMaxAttempts)
        policy.lease = try value(.outboxLease)
        policy.retention = .seconds(try value(.outboxRetentionDays) * 86_400)
        let room = try value(.storeMinFreeMB)
        policy.minimumStoreRoom = room == 0 ? nil : Int64(room) << 20
        policy.shutdownGrace = try value(.shutdownGrace)
        policy.escalation = try value(.escalationSchedule)
        policy.coalesceWindow = try value(.coalesceWindow)
        policy.atKeyboardWindow = try value(.atKeyboardWindow)
        policy.holdsInQuietHours = try value(.quietHours)
        policy.activity.updateInterval = .seconds(try value(.activityUpdateInterval))
        policy.showsPreviewByDefault = try value(.previewDefault)
        policy.staleDeviceAge = try value(.staleDeviceDays)
        return policy
    }

    /// The caps on a namespace's growth and the link schemes.
    public func admissionPolicy() throws(ConfigurationError) -> AdmissionPolicy {
        var policy = AdmissionPolicy()
        policy.maxDevicesPerAgent = try value(.maxDevicesPerAgent)
        policy.maxAgentsPerServer = try value(.maxAgentsPerServer)
        policy.maxWaitingDecisions = try value(.maxWaitingDecisions)
        policy.maxDecisionWait = try value(.maxDecisionWait)
        policy.appURLSchemes = try value(.appURLSchemes)
        return policy
    }

    /// The rate limits and the proxies whose `X-Forwarded-For` is believed.
    public func rateLimits() throws(ConfigurationError) -> RateLimiter.Limits {
        var limits = RateLimiter.Limits()
        limits.perSecretPerMinute = try value(.ratePerSecret)
        limits.perAddressPerMinute = try value(.ratePerAddress)
        limits.healthPerAddressPerMinute = try value(.healthRatePerAddress)
        limits.ipv6PrefixLength = try value(.ipv6Prefix)
        limits.newNamespacesPerAddressPerHour = try value(.newNamespacesPerAddress)
        limits.trustedProxies = try optional(.trustedProxies) ?? []
        return limits
    }

    /// When the agent side shows as connected: `recent` not below `connected`.
    public func presencePolicy() throws(ConfigurationError) -> PresencePolicy {
        var policy = PresencePolicy()
        policy.connectedWithin = try value(.presenceConnected)
        policy.recentWithin = try value(.presenceRecent)
        guard policy.recentWithin >= policy.connectedWithin else {
            throw ConfigurationError(
                "\(name(of: Setting<TimeInterval>.presenceRecent.erased)) (\(Int(policy.recentWithin)) s) must not be below \(name(of: Setting<TimeInterval>.presenceConnected.erased)) (\(Int(policy.connectedWithin)) s)"
            )
        }
        return policy
    }
}
