import Foundation
import Logging
import PushgateCore
import PushgateProviderKit

extension WebPushPlugin {
    /// One VAPID key serves every app.
    public var checkedOnce: Bool { true }

    /// The VAPID key read, a token signed and verified with it, the endpoint rules.
    /// No host: each subscription names its own push service, reached at its first push.
    public func doctorChecks(_ settings: some SettingReading, logger: Logger) async -> [DoctorCheck] {
        let webPush: WebPushConfiguration
        do {
            guard let configured = try WebPushConfiguration.read(from: settings) else {
                return [.notConfigured("webpush key", format, devices: "Web Push subscriptions")]
            }
            webPush = configured
        } catch {
            return [DoctorCheck("webpush key", .failed, error.description)]
        }
        let rules = webPush.endpointRules
        let endpoints =
            (rules.allowsHTTP ? "https and http" : "https") + " endpoints, "
            + (rules.allowsPrivateAddresses ? "private addresses allowed" : "private addresses refused")
        var checks = [
            DoctorCheck(
                "webpush key", .ok,
                "a P-256 key, public key \(webPush.vapidKey.publicKeyBase64URL) (GET /webpush/vapid-public-key), subject \(webPush.subject), \(endpoints)"
            )
        ]
        let tokens = VAPIDTokens(key: webPush.vapidKey, subject: webPush.subject)
        let token =
            (try? tokens.token(audience: "https://push.example", expires: Date().addingTimeInterval(3600))) ?? ""
        checks.append(
            webPush.vapidKey.verifies(token)
                ? DoctorCheck("vapid", .ok, "an ES256 VAPID token signs and verifies with the key")
                : DoctorCheck("vapid", .failed, "a VAPID token does not sign and verify with the key"))
        return checks
    }
}
