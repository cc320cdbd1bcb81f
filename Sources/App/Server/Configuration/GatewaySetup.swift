import PushgateCore
import PushgateDelivery
import PushgateFunctions
import PushgateInstalledServices
import PushgateProviderKit

/// The gateway's settings read once: every value typed and checked, the APNs keys and
/// FCM service accounts read and parsed (``GatewayConfiguration/setup()``). The start
/// and `pushgate config` make it; everything after receives it, and nothing reads a
/// setting's text or a key file again.
public struct GatewaySetup: Sendable {
    /// Where to listen, the store, the log, the connection limits: typed when read.
    public let configuration: GatewayConfiguration
    /// Each app's push services, the default app first; empty without `apps:`.
    public let apps: [GatewayConfiguration.AppConfiguration]
    /// The one implicit app's services (`PUSHGATE_APNS_*`, `PUSHGATE_FCM_*`), without `apps:`.
    public let services: [PreparedPushService]
    public let delivery: DeliveryPolicy
    public let admission: AdmissionPolicy
    public let rateLimits: RateLimiter.Limits
    public let presence: PresencePolicy
    /// The installed services' address formats as the settings shape what a
    /// registration may give (Web Push's endpoint rules).
    public let formats: PushAddressFormats

    /// The public answers the configured services publish, by path (the VAPID key),
    /// the same whichever app's service gives one.
    public var documents: [String: JSONValue] {
        (services + apps.flatMap(\.services)).reduce(into: [:]) { documents, service in
            documents.merge(service.documents) { first, _ in first }
        }
    }
}

extension GatewayConfiguration {
    /// Every value checked as a start needs it, the key files read: one line naming
    /// the first setting at fault. Opens no database and listens nowhere.
    public func setup() throws(ConfigurationError) -> GatewaySetup {
        let plugins = PushServicePlugins.installed()
        let apps = try appConfigurations(through: plugins)
        // Without `apps:` the top-level settings are the one app's; with them, they
        // are only what each app's own keys fall back to.
        let services = apps.isEmpty ? try Self.services(through: plugins, from: sources) : []
        // The time to live is one setting (APNs's), shared by every app.
        // A sealed-only app's registrations must give payload keys: the app's rule,
        // the default app's for a registration that names none of them.
        var admission = try sources.admissionPolicy()
        if apps.isEmpty {
            admission.sealedOnlyByDefault = try PushSealing.read(from: sources).sealedOnly
        } else {
            admission.sealedOnlyApps = Set(apps.filter(\.sealing.sealedOnly).map(\.id))
            admission.sealedOnlyByDefault = apps.first?.sealing.sealedOnly ?? false
        }
        var delivery = try sources.deliveryPolicy()
        if let timeToLive = (services + apps.flatMap(\.services)).lazy.compactMap(\.timeToLive).first {
            delivery.timeToLive = timeToLive
        }
        return GatewaySetup(
            configuration: self, apps: apps, services: services,
            delivery: delivery, admission: admission, rateLimits: try sources.rateLimits(),
            presence: try sources.presencePolicy(),
            formats: PushAddressFormats(
                try plugins.map { plugin throws(ConfigurationError) in try plugin.format(from: sources) }))
    }

    /// Checks every value as a start would (``setup()``), without opening the database
    /// or listening: one line naming the first setting at fault.
    public func validate() throws(ConfigurationError) {
        _ = try setup()
    }
}
