import Foundation
import PushgateFCM
import PushgateHTTP2

/// The FCM settings as given (flags or `PUSHGATE_FCM_*`), before they are checked.
/// `configuration()` turns them into a working configuration (the service-account
/// key read and parsed) or one line naming the setting at fault.
public struct FCMSettings: Sendable, Hashable {
    public var credentials: String?
    public var projectID: String?
    public var url: String?
    public var caFile: String?
    public var connections: String?

    public init(
        credentials: String? = nil,
        projectID: String? = nil,
        url: String? = nil,
        caFile: String? = nil,
        connections: String? = nil
    ) {
        self.credentials = credentials
        self.projectID = projectID
        self.url = url
        self.caFile = caFile
        self.connections = connections
    }

    /// The working configuration, or `nil` when no service account is configured
    /// (devices with FCM tokens then fail `no_fcm_provider`).
    public func configuration() throws(ConfigurationError) -> FCMConfiguration? {
        guard let credentials = SettingText.nonEmpty(credentials) else {
            let stray = [
                ("PUSHGATE_FCM_PROJECT_ID", projectID), ("PUSHGATE_FCM_URL", url), ("PUSHGATE_FCM_CA_FILE", caFile),
            ]
            .first { SettingText.nonEmpty($0.1) != nil }
            if let stray {
                throw ConfigurationError(
                    "\(stray.0) is set but PUSHGATE_FCM_CREDENTIALS is not: set the path of the Firebase service-account JSON"
                )
            }
            return nil
        }
        let account: FCMServiceAccount
        do {
            account = try FCMServiceAccount(contentsOf: credentials)
        } catch {
            throw ConfigurationError("PUSHGATE_FCM_CREDENTIALS: \(error.description)")
        }
        let projectID = try SettingText.parse(
            projectID, "PUSHGATE_FCM_PROJECT_ID", "a Firebase project id (letters, digits, dashes)",
            default: account.projectID
        ) { text in
            text.utf8.allSatisfy { $0.isProjectIDCharacter } && text.count <= 100 ? text : nil
        }
        var endpoint: HTTP2Endpoint?
        if let url = SettingText.nonEmpty(url) {
            guard let parsed = HTTP2Endpoint(url: url) else {
                throw ConfigurationError("PUSHGATE_FCM_URL must be https://host[:port], not '\(url)'")
            }
            endpoint = parsed
        }
        if let caFile = SettingText.nonEmpty(caFile), !FileManager.default.isReadableFile(atPath: caFile) {
            throw ConfigurationError("PUSHGATE_FCM_CA_FILE: cannot read \(caFile)")
        }
        let connections = try SettingText.parse(
            connections, "PUSHGATE_FCM_CONNECTIONS", "a number from 1 to 64", default: 2
        ) {
            Int($0).flatMap { (1...64).contains($0) ? $0 : nil }
        }
        var configuration = FCMConfiguration(
            serviceAccount: account,
            projectID: projectID,
            endpoint: endpoint,
            extraTrustedCAFile: SettingText.nonEmpty(caFile),
            connections: connections
        )
        configuration.settingNames = .init(
            credentials: "PUSHGATE_FCM_CREDENTIALS", destination: "PUSHGATE_FCM_PROJECT_ID and PUSHGATE_FCM_URL",
            caFile: "PUSHGATE_FCM_CA_FILE")
        return configuration
    }
}

extension UInt8 {
    /// Firebase project ids: lower-case letters, digits and dashes (old ones also
    /// carry a domain and a colon, `example.com:project`).
    fileprivate var isProjectIDCharacter: Bool {
        (0x61...0x7A).contains(self) || (0x30...0x39).contains(self) || self == 0x2D || self == 0x2E || self == 0x3A
    }
}
