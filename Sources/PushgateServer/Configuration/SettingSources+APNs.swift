import Crypto
import Foundation
import PushgateAPNs
import PushgateCore
import PushgateHTTP2

/// The APNs settings (`PUSHGATE_APNS_*`, or an app's own) made into a working
/// configuration, the key file read, or one line naming the setting at fault.
extension SettingSources {
    /// `nil` when no key is configured (devices with APNs tokens then fail `no_apns_provider`).
    public func apnsConfiguration() throws(ConfigurationError) -> APNsConfiguration? {
        let keyPath = Setting<String>.apnsKeyPath.erased
        guard let path = try optional(.apnsKeyPath) else {
            let credentials = [Setting<String>.apnsKeyID.erased, Setting<String>.apnsTeamID.erased]
            if let stray = (credentials + [Setting<String>.apnsTopic.erased]).first(where: isGiven) {
                throw ConfigurationError(
                    "\(name(of: stray)) is set but \(name(of: keyPath)) is not: set the path of the .p8 key")
            }
            return nil
        }
        let key: P256.Signing.PrivateKey
        do {
            key = try APNsKeyLoader.load(path: path)
        } catch {
            throw ConfigurationError("\(name(of: keyPath)): \(error.description)")
        }
        let keyID = try required(.apnsKeyID, "with an APNs key: the key's 10-character id from Apple")
        let teamID = try required(.apnsTeamID, "with an APNs key: your 10-character team id from Apple")
        let topic = try required(.apnsTopic, "with an APNs key: the app's bundle id")
        let caFile = try readableFile(.apnsCAFile)
        var configuration = APNsConfiguration(
            signingKey: key,
            keyID: keyID,
            teamID: teamID,
            topic: topic,
            environment: try value(.apnsEnvironment),
            endpoint: try endpoint(.apnsURL),
            productionEndpoint: try endpoint(.apnsProductionURL),
            sandboxEndpoint: try endpoint(.apnsSandboxURL),
            extraTrustedCAFile: caFile,
            connections: try value(.apnsConnections),
            maxStreamsPerConnection: try value(.apnsMaxStreams),
            timeToLive: .seconds(try value(.apnsTTL))
        )
        let credentials: [AnySetting] = [
            keyPath, Setting<String>.apnsKeyID.erased, Setting<String>.apnsTeamID.erased,
            Setting<String>.apnsTopic.erased,
        ]
        configuration.settingNames = .init(
            credentials: credentials.map(name(of:)).joined(separator: ", ") + " and "
                + name(of: Setting<APNsEnvironment>.apnsEnvironment.erased),
            caFile: name(of: Setting<String>.apnsCAFile.erased))
        return configuration
    }

    /// A text setting that must be given, `what` saying when and what it is.
    func required(_ setting: Setting<String>, _ what: String) throws(ConfigurationError) -> String {
        guard let value = try optional(setting) else {
            throw ConfigurationError("\(name(of: setting.erased)) is required \(what)")
        }
        return value
    }

    /// An address setting (`https://host[:port]`), `nil` when not given.
    func endpoint(_ setting: Setting<String>) throws(ConfigurationError) -> HTTP2Endpoint? {
        guard let url = try optional(setting) else { return nil }
        guard let parsed = HTTP2Endpoint(url: url) else {
            throw ConfigurationError("\(name(of: setting.erased)) must be https://host[:port], not '\(url)'")
        }
        return parsed
    }

    /// A file setting, `nil` when not given; one that cannot be read is refused.
    func readableFile(_ setting: Setting<String>) throws(ConfigurationError) -> String? {
        guard let path = try optional(setting) else { return nil }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw ConfigurationError("\(name(of: setting.erased)): cannot read \(path)")
        }
        return path
    }
}
