import Foundation
import PushgateFunctions

/// The limits of a gateway on the open internet as given (flags or `PUSHGATE_*`),
/// before they are checked: rate limits, caps on a namespace's growth, link schemes.
public struct AdmissionSettings: Sendable, Hashable {
    /// Calls a minute per secret, `0` off (`PUSHGATE_RATE_PER_SECRET`).
    public var ratePerSecret: String?
    /// Calls a minute per client address, `0` off (`PUSHGATE_RATE_PER_ADDRESS`).
    public var ratePerAddress: String?
    /// Health checks a minute per client address, `0` off (`PUSHGATE_HEALTH_RATE_PER_ADDRESS`).
    public var healthRatePerAddress: String?
    /// The prefix length an IPv6 client is counted by (`PUSHGATE_IPV6_PREFIX`).
    public var ipv6Prefix: String?
    /// New namespaces an hour per client address, `0` off (`PUSHGATE_NEW_NAMESPACES_PER_ADDRESS`).
    public var newNamespacesPerAddress: String?
    /// CIDR list of proxies whose `X-Forwarded-For` is believed (`PUSHGATE_TRUSTED_PROXIES`).
    public var trustedProxies: String?
    /// `PUSHGATE_MAX_DEVICES_PER_AGENT`.
    public var maxDevicesPerAgent: String?
    /// `PUSHGATE_MAX_AGENTS_PER_SERVER`.
    public var maxAgentsPerServer: String?
    /// Schemes `app_url` may use besides https, comma-separated (`PUSHGATE_APP_URL_SCHEMES`).
    public var appURLSchemes: String?

    public init(
        ratePerSecret: String? = nil,
        ratePerAddress: String? = nil,
        healthRatePerAddress: String? = nil,
        ipv6Prefix: String? = nil,
        newNamespacesPerAddress: String? = nil,
        trustedProxies: String? = nil,
        maxDevicesPerAgent: String? = nil,
        maxAgentsPerServer: String? = nil,
        appURLSchemes: String? = nil
    ) {
        self.ratePerSecret = ratePerSecret
        self.ratePerAddress = ratePerAddress
        self.healthRatePerAddress = healthRatePerAddress
        self.ipv6Prefix = ipv6Prefix
        self.newNamespacesPerAddress = newNamespacesPerAddress
        self.trustedProxies = trustedProxies
        self.maxDevicesPerAgent = maxDevicesPerAgent
        self.maxAgentsPerServer = maxAgentsPerServer
        self.appURLSchemes = appURLSchemes
    }

    /// The checked rate limits.
    public func rateLimits() throws(ConfigurationError) -> RateLimiter.Limits {
        var limits = RateLimiter.Limits()
        limits.perSecretPerMinute =
            try count(ratePerSecret, "PUSHGATE_RATE_PER_SECRET", "calls a minute") ?? limits.perSecretPerMinute
        limits.perAddressPerMinute =
            try count(ratePerAddress, "PUSHGATE_RATE_PER_ADDRESS", "calls a minute") ?? limits.perAddressPerMinute
        limits.healthPerAddressPerMinute =
            try count(healthRatePerAddress, "PUSHGATE_HEALTH_RATE_PER_ADDRESS", "calls a minute")
            ?? limits.healthPerAddressPerMinute
        if let text = SettingText.nonEmpty(ipv6Prefix) {
            guard let length = Int(text.trimmingCharacters(in: .whitespaces)), (1...128).contains(length) else {
                throw ConfigurationError("PUSHGATE_IPV6_PREFIX must be a prefix length from 1 to 128, not '\(text)'")
            }
            limits.ipv6PrefixLength = length
        }
        limits.newNamespacesPerAddressPerHour =
            try count(newNamespacesPerAddress, "PUSHGATE_NEW_NAMESPACES_PER_ADDRESS", "namespaces an hour")
            ?? limits.newNamespacesPerAddressPerHour
        for item in (SettingText.nonEmpty(trustedProxies) ?? "").split(separator: ",") {
            let text = item.trimmingCharacters(in: .whitespaces)
            guard let network = IPNetwork(text) else {
                throw ConfigurationError(
                    "PUSHGATE_TRUSTED_PROXIES must be addresses or networks like 10.0.0.0/8 or fd00::/8, comma-separated; '\(text)' is not one"
                )
            }
            limits.trustedProxies.append(network)
        }
        return limits
    }

    /// The checked caps and link schemes.
    public func policy() throws(ConfigurationError) -> AdmissionPolicy {
        var policy = AdmissionPolicy()
        policy.maxDevicesPerAgent =
            try count(maxDevicesPerAgent, "PUSHGATE_MAX_DEVICES_PER_AGENT", "devices", minimum: 1)
            ?? policy.maxDevicesPerAgent
        policy.maxAgentsPerServer =
            try count(maxAgentsPerServer, "PUSHGATE_MAX_AGENTS_PER_SERVER", "agents", minimum: 1)
            ?? policy.maxAgentsPerServer
        if let text = SettingText.nonEmpty(appURLSchemes) {
            var schemes: Set<String> = []
            for item in text.split(separator: ",") {
                let scheme = item.trimmingCharacters(in: .whitespaces).lowercased()
                guard let first = scheme.first, first.isASCII, first.isLetter,
                    scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
                else {
                    throw ConfigurationError(
                        "PUSHGATE_APP_URL_SCHEMES must be URL schemes like myapp, comma-separated; '\(scheme)' is not one"
                    )
                }
                guard !TriggerEventRequest.forbiddenSchemes.contains(scheme) else {
                    throw ConfigurationError(
                        "PUSHGATE_APP_URL_SCHEMES must not list '\(scheme)': such links run code or read files on the phone"
                    )
                }
                schemes.insert(scheme)
            }
            policy.appURLSchemes = schemes
        }
        return policy
    }

    private func count(_ value: String?, _ name: String, _ unit: String, minimum: Int = 0) throws(ConfigurationError)
        -> Int?
    {
        guard let value = SettingText.nonEmpty(value) else { return nil }
        guard let number = Int(value.trimmingCharacters(in: .whitespaces)), (minimum...10_000_000).contains(number)
        else {
            throw ConfigurationError(
                "\(name) must be a number of \(unit) from \(minimum) to 10000000\(minimum == 0 ? " (0: no limit)" : ""), not '\(value)'"
            )
        }
        return number
    }
}
