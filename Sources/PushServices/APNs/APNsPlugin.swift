import Logging
import PushgateCore
import PushgateProviderKit

/// APNs as a plug-in of the gateway (``PushServicePlugin``): its tokens, its settings
/// (`PUSHGATE_APNS_*`), and each app's two leaves, one per environment, on
/// connections shared by every app of the gateway (pools per host and team, a
/// provider token per key).
public final class APNsPlugin: PushServicePlugin {
    private let connections = APNsConnections()

    public init() {}

    public var format: PushAddressFormat { APNsAddress.format }
    public var settings: [AnySetting] { APNsSettings.all }
    public var perAppSettings: [AnySetting] { APNsSettings.perApp }

    public func prepare(from settings: some SettingReading) throws(ConfigurationError) -> PreparedPushService? {
        guard let configuration = try APNsConfiguration.read(from: settings) else { return nil }
        let connections = self.connections
        return PreparedPushService(
            service: .apns, configuration: configuration, timeToLive: configuration.timeToLive,
            description: [
                "endpoint": "\(configuration.endpoint)", "environment": "\(configuration.environment.rawValue)",
                "topic": "\(configuration.topic)", "sandbox": "\(configuration.sandboxEndpoint)",
                "production": "\(configuration.productionEndpoint)", "connections": "\(configuration.connections)",
            ]
        ) { app, logger throws(ConfigurationError) in
            let environments: APNsEnvironments
            do {
                environments = try APNsEnvironments(
                    configuration: configuration, connections: connections, logger: logger)
            } catch {
                throw ConfigurationError(String(describing: error))
            }
            return .init(routes: environments.routes(of: app)) { try await environments.run() }
        }
    }
}
