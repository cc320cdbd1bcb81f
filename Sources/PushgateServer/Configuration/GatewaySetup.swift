import PushgateAPNs
import PushgateCore
import PushgateDelivery
import PushgateFCM
import PushgateFunctions

/// The gateway's settings read once: every value typed and checked, the APNs keys and
/// FCM service accounts read and parsed (``GatewayConfiguration/setup()``). The start
/// and `pushgate config` make it; everything after receives it, and nothing reads a
/// setting's text or a key file again.
public struct GatewaySetup: Sendable {
    /// Where to listen, the store, the log, the connection limits: typed when read.
    public let configuration: GatewayConfiguration
    /// Each app's push services, the default app first; empty without `apps:`.
    public let apps: [GatewayConfiguration.AppConfiguration]
    /// The one implicit app's APNs (`PUSHGATE_APNS_*`), without `apps:`.
    public let apns: APNsConfiguration?
    /// The one implicit app's FCM (`PUSHGATE_FCM_*`), without `apps:`.
    public let fcm: FCMConfiguration?
    public let delivery: DeliveryPolicy
    public let admission: AdmissionPolicy
    public let rateLimits: RateLimiter.Limits
    public let presence: PresencePolicy
}

extension GatewayConfiguration {
    /// Every value checked as a start needs it, the key files read: one line naming
    /// the first setting at fault. Opens no database and listens nowhere.
    public func setup() throws(ConfigurationError) -> GatewaySetup {
        let apps = try appConfigurations()
        // Without `apps:` the top-level APNs and FCM settings are the one app; with
        // them, they are only what each app's own keys fall back to.
        let apns = apps.isEmpty ? try sources.apnsConfiguration() : nil
        let fcm = apps.isEmpty ? try sources.fcmConfiguration() : nil
        // The APNs time to live is one setting, shared by every app.
        var delivery = try sources.deliveryPolicy()
        if let timeToLive = apns?.timeToLive ?? apps.lazy.compactMap(\.apns?.timeToLive).first {
            delivery.timeToLive = timeToLive
        }
        return GatewaySetup(
            configuration: self, apps: apps, apns: apns, fcm: fcm, delivery: delivery,
            admission: try sources.admissionPolicy(), rateLimits: try sources.rateLimits(),
            presence: try sources.presencePolicy())
    }

    /// Checks every value as a start would (``setup()``), without opening the database
    /// or listening: one line naming the first setting at fault.
    public func validate() throws(ConfigurationError) {
        _ = try setup()
    }
}
