import PushgateCore
import PushgateHTTP2

extension FCMConfiguration {
    /// FCM's settings (the gateway's, or one app's over them) made into a working
    /// configuration, the service-account key read; `nil` when no service account is
    /// configured (devices with FCM tokens then fail `no_fcm_provider`); else one
    /// line naming the setting at fault where it was given.
    public static func read(from settings: some SettingReading) throws(ConfigurationError) -> FCMConfiguration? {
        let credentials = Setting<String>.fcmCredentials.erased
        let projectID = Setting<String>.fcmProjectID.erased
        let url = Setting<HTTP2Endpoint>.fcmURL.erased
        guard let path = try settings.optional(.fcmCredentials) else {
            // For an app, only its own project id would be stray: the gateway's address
            // and CA are for every app's FCM.
            if let stray = settings.firstGiven(of: [projectID, url, Setting<String>.fcmCAFile.erased], here: true) {
                throw ConfigurationError(
                    "\(settings.name(of: stray)) is set but \(settings.name(of: credentials)) is not: set the path of the Firebase service-account JSON"
                )
            }
            return nil
        }
        let account: FCMServiceAccount
        do {
            account = try FCMServiceAccount(contentsOf: path)
        } catch {
            throw ConfigurationError("\(settings.name(of: credentials)): \(error.description)")
        }
        var configuration = FCMConfiguration(
            serviceAccount: account,
            projectID: try settings.optional(.fcmProjectID) ?? account.projectID,
            endpoint: try settings.optional(.fcmURL),
            extraTrustedCAFile: try settings.optional(.fcmCAFile),
            connections: try settings.value(.fcmConnections)
        )
        configuration.sealing = try PushSealing.read(from: settings)
        configuration.approvalActions = try ApprovalActions.read(from: settings)
        configuration.urgencies = try EventUrgencies.read(from: settings)
        configuration.settingNames = .init(
            credentials: settings.name(of: credentials),
            destination: "\(settings.name(of: projectID)) and \(settings.name(of: url))",
            caFile: settings.name(of: Setting<String>.fcmCAFile.erased))
        return configuration
    }
}
