import Logging
import PushgateCore
import PushgateProviderKit
import ServiceLifecycle

/// Web Push as a plug-in of the gateway (``PushServicePlugin``): its subscriptions,
/// its settings (`PUSHGATE_WEBPUSH_*`), each app's one leaf, and the VAPID public key
/// the gateway publishes (`GET /webpush/vapid-public-key`).
public struct WebPushPlugin: PushServicePlugin {
    public init() {}

    /// Where the gateway publishes the VAPID public key.
    public static let publicKeyPath = "/webpush/vapid-public-key"

    public var format: PushAddressFormat { WebPushAddress.format }
    public var settings: [AnySetting] { WebPushSettings.all }
    public var perAppSettings: [AnySetting] { WebPushSettings.perApp }

    public func format(from settings: some SettingReading) throws(ConfigurationError) -> PushAddressFormat {
        WebPushAddress.format(rules: try WebPushConfiguration.rules(from: settings))
    }

    public func prepare(from settings: some SettingReading) throws(ConfigurationError) -> PreparedPushService? {
        guard let configuration = try WebPushConfiguration.read(from: settings) else { return nil }
        let publicKey = configuration.vapidKey.publicKeyBase64URL
        return PreparedPushService(
            service: .webpush, configuration: configuration,
            description: [
                "subject": "\(configuration.subject)", "public_key": "\(publicKey)",
                "allow_private_endpoints": "\(configuration.endpointRules.allowsPrivateAddresses)",
                "allow_http": "\(configuration.endpointRules.allowsHTTP)",
            ],
            documents: [Self.publicKeyPath: ["public_key": .string(publicKey)]]
        ) { app, logger throws(ConfigurationError) in
            let provider: WebPushProvider
            do {
                provider = try WebPushProvider(configuration: configuration, logger: logger)
            } catch {
                throw ConfigurationError(String(describing: error))
            }
            return .init(routes: [PushRoute(PushRoute.Key(app: app, service: .webpush), provider: provider)]) {
                try? await gracefulShutdown()
                await provider.shutdown()
            }
        }
    }
}
