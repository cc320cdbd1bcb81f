import Foundation
import PushgateFCM
import PushgateHTTP2

/// The FCM settings (`PUSHGATE_FCM_*`, or an app's own) made into a working
/// configuration, the service-account key read, or one line naming the setting at fault.
extension SettingSources {
    /// `nil` when no service account is configured (devices with FCM tokens then
    /// fail `no_fcm_provider`).
    public func fcmConfiguration() throws(ConfigurationError) -> FCMConfiguration? {
        let credentials = Setting<String>.fcmCredentials.erased
        guard let path = try optional(.fcmCredentials) else {
            let others = [
                Setting<String>.fcmProjectID.erased, Setting<String>.fcmURL.erased, Setting<String>.fcmCAFile.erased,
            ]
            if let stray = others.first(where: isGivenHere) {
                throw ConfigurationError(
                    "\(name(of: stray)) is set but \(name(of: credentials)) is not: set the path of the Firebase service-account JSON"
                )
            }
            return nil
        }
        let account: FCMServiceAccount
        do {
            account = try FCMServiceAccount(contentsOf: path)
        } catch {
            throw ConfigurationError("\(name(of: credentials)): \(error.description)")
        }
        let projectID = try optional(.fcmProjectID) ?? account.projectID
        var configuration = FCMConfiguration(
            serviceAccount: account,
            projectID: projectID,
            endpoint: try endpoint(.fcmURL),
            extraTrustedCAFile: try readableFile(.fcmCAFile),
            connections: try value(.fcmConnections)
        )
        configuration.settingNames = .init(
            credentials: name(of: credentials),
            destination:
                "\(name(of: Setting<String>.fcmProjectID.erased)) and \(name(of: Setting<String>.fcmURL.erased))",
            caFile: name(of: Setting<String>.fcmCAFile.erased))
        return configuration
    }
}
