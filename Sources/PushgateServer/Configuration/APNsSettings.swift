import Crypto
import Foundation
import PushgateAPNs
import PushgateCore
import PushgateHTTP2

/// The APNs settings as given (flags or `PUSHGATE_APNS_*`), before they are checked.
/// `configuration()` turns them into a working configuration or one line naming the
/// setting at fault.
public struct APNsSettings: Sendable, Hashable {
    public var keyPath: String?
    public var keyID: String?
    public var teamID: String?
    public var topic: String?
    public var environment: String?
    public var url: String?
    public var productionURL: String?
    public var sandboxURL: String?
    public var caFile: String?
    public var connections: String?
    public var maxStreams: String?
    public var ttl: String?

    public init(
        keyPath: String? = nil,
        keyID: String? = nil,
        teamID: String? = nil,
        topic: String? = nil,
        environment: String? = nil,
        url: String? = nil,
        productionURL: String? = nil,
        sandboxURL: String? = nil,
        caFile: String? = nil,
        connections: String? = nil,
        maxStreams: String? = nil,
        ttl: String? = nil
    ) {
        self.keyPath = keyPath
        self.keyID = keyID
        self.teamID = teamID
        self.topic = topic
        self.environment = environment
        self.url = url
        self.productionURL = productionURL
        self.sandboxURL = sandboxURL
        self.caFile = caFile
        self.connections = connections
        self.maxStreams = maxStreams
        self.ttl = ttl
    }

    /// The working configuration, or `nil` when no key is configured (delivery
    /// through the log).
    public func configuration() throws(ConfigurationError) -> APNsConfiguration? {
        guard let keyPath = SettingText.nonEmpty(keyPath) else {
            let stray = [
                ("PUSHGATE_APNS_KEY_ID", keyID), ("PUSHGATE_APNS_TEAM_ID", teamID), ("PUSHGATE_APNS_TOPIC", topic),
            ]
            .first { SettingText.nonEmpty($0.1) != nil }
            if let stray {
                throw ConfigurationError(
                    "\(stray.0) is set but PUSHGATE_APNS_KEY_PATH is not: set the path of the .p8 key")
            }
            return nil
        }
        let key: P256.Signing.PrivateKey
        do {
            key = try APNsKeyLoader.load(path: keyPath)
        } catch {
            throw ConfigurationError("PUSHGATE_APNS_KEY_PATH: \(error.description)")
        }
        let keyID = try SettingText.required(
            keyID, "PUSHGATE_APNS_KEY_ID", "with an APNs key: the key's 10-character id from Apple")
        let teamID = try SettingText.required(
            teamID, "PUSHGATE_APNS_TEAM_ID", "with an APNs key: your 10-character team id from Apple")
        let topic = try SettingText.required(topic, "PUSHGATE_APNS_TOPIC", "with an APNs key: the app's bundle id")
        let environment = try SettingText.parse(
            environment, "PUSHGATE_APNS_ENVIRONMENT", "production, sandbox or development (the same as sandbox)",
            default: .production
        ) {
            APNsEnvironment(setting: $0)
        }
        let endpoint = try Self.endpoint(url, "PUSHGATE_APNS_URL")
        if let caFile = SettingText.nonEmpty(caFile), !FileManager.default.isReadableFile(atPath: caFile) {
            throw ConfigurationError("PUSHGATE_APNS_CA_FILE: cannot read \(caFile)")
        }
        let connections = try SettingText.parse(
            connections, "PUSHGATE_APNS_CONNECTIONS", "a number from 1 to 64", default: 2
        ) {
            Int($0).flatMap { (1...64).contains($0) ? $0 : nil }
        }
        let maxStreams = try SettingText.parse(
            maxStreams, "PUSHGATE_APNS_MAX_STREAMS", "a number from 1 to 1000", default: 100
        ) {
            Int($0).flatMap { (1...1000).contains($0) ? $0 : nil }
        }
        let ttl = try SettingText.parse(ttl, "PUSHGATE_APNS_TTL", "seconds, 0 to 2592000 (30 days)", default: 86_400) {
            Int($0).flatMap { (0...2_592_000).contains($0) ? $0 : nil }
        }
        var configuration = APNsConfiguration(
            signingKey: key,
            keyID: keyID,
            teamID: teamID,
            topic: topic,
            environment: environment,
            endpoint: endpoint,
            productionEndpoint: try Self.endpoint(productionURL, "PUSHGATE_APNS_PRODUCTION_URL"),
            sandboxEndpoint: try Self.endpoint(sandboxURL, "PUSHGATE_APNS_SANDBOX_URL"),
            extraTrustedCAFile: SettingText.nonEmpty(caFile),
            connections: connections,
            maxStreamsPerConnection: maxStreams,
            timeToLive: .seconds(ttl)
        )
        configuration.settingNames = .init(
            credentials:
                "PUSHGATE_APNS_KEY_PATH, PUSHGATE_APNS_KEY_ID, PUSHGATE_APNS_TEAM_ID, PUSHGATE_APNS_TOPIC and PUSHGATE_APNS_ENVIRONMENT",
            caFile: "PUSHGATE_APNS_CA_FILE")
        return configuration
    }
}

extension APNsSettings {
    /// An address setting (`https://host[:port]`), `nil` when not given.
    fileprivate static func endpoint(_ url: String?, _ name: String) throws(ConfigurationError) -> HTTP2Endpoint? {
        guard let url = SettingText.nonEmpty(url) else { return nil }
        guard let parsed = HTTP2Endpoint(url: url) else {
            throw ConfigurationError("\(name) must be https://host[:port], not '\(url)'")
        }
        return parsed
    }
}

/// A setting that stops the start, named in the description.
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
