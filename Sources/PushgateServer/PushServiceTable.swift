import PushgateAPNs
import PushgateCore
import PushgateFCM

/// The push services the gateway routes devices to, keyed by token kind, one line
/// each: adding a third service is its provider's target and one line here (see
/// ARCHITECTURE.md, "Adding a push service").
public enum PushServiceTable {
    public static func services(apns: (any PushProvider)?, fcm: (any PushProvider)?) -> [PushService] {
        [
            PushService(
                kind: .apns, name: "APNs", unconfiguredReason: "no_apns_provider", setting: "PUSHGATE_APNS_KEY_PATH",
                provider: apns),
            PushService(
                kind: .fcm, name: "FCM", unconfiguredReason: "no_fcm_provider", setting: "PUSHGATE_FCM_CREDENTIALS",
                provider: fcm),
        ]
    }
}
