import PushgateFunctions
import PushgateServer
import Testing

@Suite("Admission settings as given by flags or PUSHGATE_*")
struct AdmissionSettingsTests {
    @Test("defaults: 120 a minute per secret, 240 per address, 10 namespaces an hour, caps of 10,000")
    func defaults() throws {
        let limits = try AdmissionSettings().rateLimits()
        #expect(limits.perSecretPerMinute == 120 && limits.perAddressPerMinute == 240)
        #expect(limits.healthPerAddressPerMinute == 600 && limits.ipv6PrefixLength == 64)
        #expect(limits.newNamespacesPerAddressPerHour == 10 && limits.trustedProxies.isEmpty)
        let policy = try AdmissionSettings().policy()
        #expect(policy.maxDevicesPerAgent == 10_000 && policy.maxAgentsPerServer == 10_000)
        #expect(policy.appURLSchemes == ["codeagents"])
    }

    @Test("given values, 0 turning a rate limit off")
    func given() throws {
        let settings = AdmissionSettings(
            ratePerSecret: "0", ratePerAddress: "1000", newNamespacesPerAddress: "0",
            trustedProxies: "10.0.0.0/8, ::1", maxDevicesPerAgent: "1000000", maxAgentsPerServer: "5",
            appURLSchemes: "MyApp, ogs")
        let limits = try settings.rateLimits()
        #expect(limits.perSecretPerMinute == 0 && limits.perAddressPerMinute == 1000)
        #expect(limits.trustedProxies.map(\.description) == ["10.0.0.0/8", "::1/128"])
        let policy = try settings.policy()
        #expect(policy.maxDevicesPerAgent == 1_000_000 && policy.maxAgentsPerServer == 5)
        #expect(policy.appURLSchemes == ["myapp", "ogs"])
    }

    @Test(
        "a bad value is one line naming the setting",
        arguments: [
            (AdmissionSettings(ratePerSecret: "-1"), "PUSHGATE_RATE_PER_SECRET"),
            (AdmissionSettings(ratePerAddress: "many"), "PUSHGATE_RATE_PER_ADDRESS"),
            (AdmissionSettings(newNamespacesPerAddress: "1.5"), "PUSHGATE_NEW_NAMESPACES_PER_ADDRESS"),
            (AdmissionSettings(healthRatePerAddress: "-5"), "PUSHGATE_HEALTH_RATE_PER_ADDRESS"),
            (AdmissionSettings(ipv6Prefix: "0"), "PUSHGATE_IPV6_PREFIX"),
            (AdmissionSettings(ipv6Prefix: "129"), "PUSHGATE_IPV6_PREFIX"),
            (AdmissionSettings(ipv6Prefix: "/64"), "PUSHGATE_IPV6_PREFIX"),
            (AdmissionSettings(trustedProxies: "10.0.0.0/8,proxy.internal"), "PUSHGATE_TRUSTED_PROXIES"),
            (AdmissionSettings(maxDevicesPerAgent: "0"), "PUSHGATE_MAX_DEVICES_PER_AGENT"),
            (AdmissionSettings(maxAgentsPerServer: "x"), "PUSHGATE_MAX_AGENTS_PER_SERVER"),
            (AdmissionSettings(appURLSchemes: "javascript"), "PUSHGATE_APP_URL_SCHEMES"),
            (AdmissionSettings(appURLSchemes: "my app"), "PUSHGATE_APP_URL_SCHEMES"),
        ])
    func refused(settings: AdmissionSettings, name: String) {
        #expect {
            _ = try settings.rateLimits()
            _ = try settings.policy()
        } throws: { error in
            let message = "\(error)"
            return message.contains(name) && !message.contains("\n")
        }
    }
}
