import PushgateCore
import PushgateHTTP2

/// APNs's settings (`PUSHGATE_APNS_*`), declared here, in its module: the gateway's
/// catalogue lists them (``APNsSettings/all``), ``APNsConfiguration/read(from:)`` reads them.
extension Setting {
    public static var apnsKeyPath: Setting<String> {
        .text("apns_key_path", "APNs provider key (.p8), for devices with an APNs token.")
    }
    public static var apnsKeyID: Setting<String> { .text("apns_key_id", "The key's 10-character id.") }
    public static var apnsTeamID: Setting<String> { .text("apns_team_id", "Your 10-character Apple team id.") }
    public static var apnsTopic: Setting<String> { .text("apns_topic", "apns-topic: the app's bundle id.") }
    public static var apnsEnvironment: Setting<APNsEnvironment> {
        .choice(
            "apns_environment", default: "production", "production, sandbox or development (the same as sandbox)",
            "production, or sandbox (also written development).", APNsEnvironment.init(setting:))
    }
    public static var apnsURL: Setting<HTTP2Endpoint> {
        .endpoint("apns_url", "Override of the APNs address, https://host[:port] (an emulator or a stand-in).")
    }
    public static var apnsProductionURL: Setting<HTTP2Endpoint> {
        .endpoint(
            "apns_production_url", "Override of the production APNs address (PUSHGATE_APNS_URL overrides both).")
    }
    public static var apnsSandboxURL: Setting<HTTP2Endpoint> {
        .endpoint("apns_sandbox_url", "Override of the sandbox APNs address (PUSHGATE_APNS_URL overrides both).")
    }
    public static var apnsCAFile: Setting<String> {
        .readableFile("apns_ca_file", "PEM file of extra CA certificates to trust for APNs.")
    }
    public static var apnsConnections: Setting<Int> {
        .number("apns_connections", default: "2", in: 1...64, "HTTP/2 connections to APNs, 1-64.")
    }
    public static var apnsMaxStreams: Setting<Int> {
        .number("apns_max_streams", default: "100", in: 1...1000, "Pushes in flight per APNs connection, at most.")
    }
    public static var apnsActivityAttributesType: Setting<String> {
        .text(
            "apns_activity_attributes_type", default: "AgentRunAttributes",
            "attributes-type of a Live Activity started by push: the app's ActivityAttributes type's name.")
    }
    public static var apnsTTL: Setting<Int> {
        .number(
            "apns_ttl", default: "86400", in: 0...2_592_000, expected: "seconds, 0 to 2592000 (30 days)",
            "Seconds APNs keeps a push for an offline device; also how long it is retried.")
    }

    /// A push service's address, `https://host[:port]`.
    public static func endpoint(_ key: String, _ help: String) -> Setting<HTTP2Endpoint> {
        Setting<HTTP2Endpoint>(key, help) { url in
            HTTP2Endpoint(url: url).map(Result.success) ?? .failure(.mustBe("https://host[:port]", not: url))
        }
    }
}

/// The list of APNs's settings.
public enum APNsSettings {
    /// In the order help and `pushgate config` show them.
    public static let all: [AnySetting] = [
        Setting<String>.apnsKeyPath.erased, Setting<String>.apnsKeyID.erased, Setting<String>.apnsTeamID.erased,
        Setting<String>.apnsTopic.erased, Setting<APNsEnvironment>.apnsEnvironment.erased,
        Setting<HTTP2Endpoint>.apnsURL.erased, Setting<HTTP2Endpoint>.apnsProductionURL.erased,
        Setting<HTTP2Endpoint>.apnsSandboxURL.erased, Setting<String>.apnsCAFile.erased,
        Setting<Int>.apnsConnections.erased, Setting<Int>.apnsMaxStreams.erased, Setting<Int>.apnsTTL.erased,
        Setting<String>.apnsActivityAttributesType.erased,
    ]

    /// What one app of `apps:` may give for itself (`apns: {key_path: …}`): its key
    /// and topic; the addresses, CA, connections and time to live are the gateway's.
    public static let perApp: [AnySetting] = [
        Setting<String>.apnsKeyPath.erased, Setting<String>.apnsKeyID.erased, Setting<String>.apnsTeamID.erased,
        Setting<String>.apnsTopic.erased, Setting<APNsEnvironment>.apnsEnvironment.erased,
        Setting<String>.apnsActivityAttributesType.erased,
    ]
}
