import PushgateCore
import PushgateHTTP2

/// FCM's settings (`PUSHGATE_FCM_*`), declared here, in its module: the gateway's
/// catalogue lists them (``FCMSettings/all``), ``FCMConfiguration/read(from:)`` reads them.
extension Setting {
    public static var fcmCredentials: Setting<String> {
        .text("fcm_credentials", "Firebase service-account JSON, for devices with an FCM token.")
    }
    public static var fcmProjectID: Setting<String> {
        Setting<String>("fcm_project_id", "The Firebase project to send for (default: the JSON's).") { text in
            // Lower-case letters, digits and dashes (old ones also carry a domain and a
            // colon, `example.com:project`).
            text.count <= 100 && text.utf8.allSatisfy(\.isProjectIDCharacter)
                ? .success(text) : .failure(.mustBe("a Firebase project id (letters, digits, dashes)", not: text))
        }
    }
    public static var fcmURL: Setting<HTTP2Endpoint> {
        Setting<HTTP2Endpoint>(
            "fcm_url", "Override of the FCM address, https://host[:port] (an emulator or a stand-in)."
        ) { url in
            HTTP2Endpoint(url: url).map(Result.success) ?? .failure(.mustBe("https://host[:port]", not: url))
        }
    }
    public static var fcmCAFile: Setting<String> {
        .readableFile("fcm_ca_file", "PEM file of extra CA certificates to trust for FCM and the token URI.")
    }
    public static var fcmConnections: Setting<Int> {
        .number("fcm_connections", default: "2", in: 1...64, "HTTP/2 connections to FCM, 1-64.")
    }
}

/// The list of FCM's settings.
public enum FCMSettings {
    /// In the order help and `pushgate config` show them.
    public static let all: [AnySetting] = [
        Setting<String>.fcmCredentials.erased, Setting<String>.fcmProjectID.erased,
        Setting<HTTP2Endpoint>.fcmURL.erased, Setting<String>.fcmCAFile.erased, Setting<Int>.fcmConnections.erased,
    ]

    /// What one app of `apps:` may give for itself (`fcm: {credentials: …}`): its
    /// service account and project.
    public static let perApp: [AnySetting] = [
        Setting<String>.fcmCredentials.erased, Setting<String>.fcmProjectID.erased,
    ]
}

extension UInt8 {
    fileprivate var isProjectIDCharacter: Bool {
        (0x61...0x7A).contains(self) || (0x30...0x39).contains(self) || self == 0x2D || self == 0x2E || self == 0x3A
    }
}
