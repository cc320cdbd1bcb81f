import Logging
import PushgateCore
import PushgateProviderKit

/// FCM as a plug-in of the gateway (``PushServicePlugin``): its tokens, its settings
/// (`PUSHGATE_FCM_*`), and each app's one leaf.
public struct FCMPlugin: PushServicePlugin {
    public init() {}

    public var format: PushAddressFormat { FCMAddress.format }
    public var settings: [AnySetting] { FCMSettings.all }
    public var perAppSettings: [AnySetting] { FCMSettings.perApp }

    public func prepare(from settings: some SettingReading) throws(ConfigurationError) -> PreparedPushService? {
        guard let configuration = try FCMConfiguration.read(from: settings) else { return nil }
        return PreparedPushService(
            service: .fcm, configuration: configuration,
            description: [
                "endpoint": "\(configuration.endpoint)", "project": "\(configuration.projectID)",
                "service_account": "\(configuration.serviceAccount.clientEmail)",
                "connections": "\(configuration.connections)",
            ]
        ) { app, logger throws(ConfigurationError) in
            let provider: FCMPushProvider
            do {
                provider = try FCMPushProvider(configuration: configuration, logger: logger)
            } catch {
                throw ConfigurationError(String(describing: error))
            }
            return .init(routes: [PushRoute(PushRoute.Key(app: app, service: .fcm), provider: provider)]) {
                try await provider.run()
            }
        }
    }
}
