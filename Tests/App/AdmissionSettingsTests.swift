import PushgateFunctions
import PushgateServer
import Testing

@Suite("Admission settings as given by flags or PUSHGATE_*")
struct AdmissionSettingsTests {
    @Test("defaults: 120 a minute per secret, 240 per address, 10 namespaces an hour, caps of 10,000")
    func defaults() throws {
        let limits = try SettingSources().rateLimits()
        #expect(limits.perSecretPerMinute == 120 && limits.perAddressPerMinute == 240)
        #expect(limits.healthPerAddressPerMinute == 600 && limits.ipv6PrefixLength == 64)
        #expect(limits.newNamespacesPerAddressPerHour == 10 && limits.trustedProxies.isEmpty)
        let policy = try SettingSources().admissionPolicy()
        #expect(policy.maxDevicesPerAgent == 10_000 && policy.maxAgentsPerServer == 10_000)
        #expect(policy.appURLSchemes == ["codeagents"])
    }

    @Test("given values, 0 turning a rate limit off")
    func given() throws {
        let settings = SettingSources(environment: [
            "PUSHGATE_RATE_PER_SECRET": "0", "PUSHGATE_RATE_PER_ADDRESS": "1000",
            "PUSHGATE_NEW_NAMESPACES_PER_ADDRESS": "0", "PUSHGATE_TRUSTED_PROXIES": "10.0.0.0/8, ::1",
            "PUSHGATE_MAX_DEVICES_PER_AGENT": "1000000", "PUSHGATE_MAX_AGENTS_PER_SERVER": "5",
            "PUSHGATE_APP_URL_SCHEMES": "MyApp, ogs",
        ])
        let limits = try settings.rateLimits()
        #expect(limits.perSecretPerMinute == 0 && limits.perAddressPerMinute == 1000)
        #expect(limits.trustedProxies.map(\.description) == ["10.0.0.0/8", "::1/128"])
        let policy = try settings.admissionPolicy()
        #expect(policy.maxDevicesPerAgent == 1_000_000 && policy.maxAgentsPerServer == 5)
        #expect(policy.appURLSchemes == ["myapp", "ogs"])
    }

    @Test(
        "a bad value is one line naming the setting",
        arguments: [
            (SettingSources(environment: ["PUSHGATE_RATE_PER_SECRET": "-1"]), "PUSHGATE_RATE_PER_SECRET"),
            (SettingSources(environment: ["PUSHGATE_RATE_PER_ADDRESS": "many"]), "PUSHGATE_RATE_PER_ADDRESS"),
            (
                SettingSources(environment: ["PUSHGATE_NEW_NAMESPACES_PER_ADDRESS": "1.5"]),
                "PUSHGATE_NEW_NAMESPACES_PER_ADDRESS"
            ),
            (
                SettingSources(environment: ["PUSHGATE_HEALTH_RATE_PER_ADDRESS": "-5"]),
                "PUSHGATE_HEALTH_RATE_PER_ADDRESS"
            ),
            (SettingSources(environment: ["PUSHGATE_IPV6_PREFIX": "0"]), "PUSHGATE_IPV6_PREFIX"),
            (SettingSources(environment: ["PUSHGATE_IPV6_PREFIX": "129"]), "PUSHGATE_IPV6_PREFIX"),
            (SettingSources(environment: ["PUSHGATE_IPV6_PREFIX": "/64"]), "PUSHGATE_IPV6_PREFIX"),
            (
                SettingSources(environment: ["PUSHGATE_TRUSTED_PROXIES": "10.0.0.0/8,proxy.internal"]),
                "PUSHGATE_TRUSTED_PROXIES"
            ),
            (SettingSources(environment: ["PUSHGATE_MAX_DEVICES_PER_AGENT": "0"]), "PUSHGATE_MAX_DEVICES_PER_AGENT"),
            (SettingSources(environment: ["PUSHGATE_MAX_AGENTS_PER_SERVER": "x"]), "PUSHGATE_MAX_AGENTS_PER_SERVER"),
            (SettingSources(environment: ["PUSHGATE_APP_URL_SCHEMES": "javascript"]), "PUSHGATE_APP_URL_SCHEMES"),
            (SettingSources(environment: ["PUSHGATE_APP_URL_SCHEMES": "my app"]), "PUSHGATE_APP_URL_SCHEMES"),
        ])
    func refused(settings: SettingSources, name: String) {
        #expect {
            _ = try settings.rateLimits()
            _ = try settings.admissionPolicy()
        } throws: { error in
            let message = "\(error)"
            return message.contains(name) && !message.contains("\n")
        }
    }
}
