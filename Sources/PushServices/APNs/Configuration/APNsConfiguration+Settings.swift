import Crypto
import PushgateCore
import PushgateHTTP2

extension APNsConfiguration {
    /// APNs's settings (the gateway's, or one app's over them) made into a working
    /// configuration, the key file read; `nil` when no key is configured (devices with
    /// APNs tokens then fail `no_apns_provider`); else one line naming the setting at
    /// fault where it was given.
    public static func read(from settings: some SettingReading) throws(ConfigurationError) -> APNsConfiguration? {
        let keyPath = Setting<String>.apnsKeyPath.erased
        let credentials = [
            keyPath, Setting<String>.apnsKeyID.erased, Setting<String>.apnsTeamID.erased,
            Setting<String>.apnsTopic.erased,
        ]
        guard let path = try settings.optional(.apnsKeyPath) else {
            if let stray = settings.firstGiven(of: Array(credentials.dropFirst())) {
                throw ConfigurationError(
                    "\(settings.name(of: stray)) is set but \(settings.name(of: keyPath)) is not: set the path of the .p8 key"
                )
            }
            return nil
        }
        let key: P256.Signing.PrivateKey
        do {
            key = try APNsKeyLoader.load(path: path)
        } catch {
            throw ConfigurationError("\(settings.name(of: keyPath)): \(error.description)")
        }
        var configuration = APNsConfiguration(
            signingKey: key,
            keyID: try settings.required(.apnsKeyID, "with an APNs key: the key's 10-character id from Apple"),
            teamID: try settings.required(.apnsTeamID, "with an APNs key: your 10-character team id from Apple"),
            topic: try settings.required(.apnsTopic, "with an APNs key: the app's bundle id"),
            environment: try settings.value(.apnsEnvironment),
            endpoint: try settings.optional(.apnsURL),
            productionEndpoint: try settings.optional(.apnsProductionURL),
            sandboxEndpoint: try settings.optional(.apnsSandboxURL),
            extraTrustedCAFile: try settings.optional(.apnsCAFile),
            connections: try settings.value(.apnsConnections),
            maxStreamsPerConnection: try settings.value(.apnsMaxStreams),
            timeToLive: .seconds(try settings.value(.apnsTTL))
        )
        configuration.sealing = try PushSealing.read(from: settings)
        configuration.approvalActions = try ApprovalActions.read(from: settings)
        configuration.urgencies = try EventUrgencies.read(from: settings)
        configuration.activityAttributesType = try settings.value(.apnsActivityAttributesType)
        configuration.settingNames = .init(
            credentials: credentials.map(settings.name(of:)).joined(separator: ", ") + " and "
                + settings.name(of: Setting<APNsEnvironment>.apnsEnvironment.erased),
            caFile: settings.name(of: Setting<String>.apnsCAFile.erased))
        return configuration
    }
}
