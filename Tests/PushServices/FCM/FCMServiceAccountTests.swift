import Foundation
import PushgateEmulators
import PushgateFCM
import PushgateTesting
import Testing
import _CryptoExtras

/// Reading a Firebase service-account key: what a start accepts and refuses.
@Suite("FCM service account")
struct FCMServiceAccountTests {
    static let key = FCMEmulatorAccount.testAccount.privateKey

    static func json(_ fields: [String: String], dropping: String? = nil) -> Data {
        var object: [String: String] = [
            "type": "service_account", "project_id": "demo-project", "private_key_id": "abc123",
            "private_key": key.pkcs8PEMRepresentation, "client_email": "pushgate@demo-project.iam.gserviceaccount.com",
            "client_id": "1234", "token_uri": "https://oauth2.googleapis.com/token",
        ]
        object.merge(fields) { _, new in new }
        if let dropping { object[dropping] = nil }
        return try! JSONSerialization.data(withJSONObject: object)
    }

    @Test("a real key's fields are read")
    func reads() throws {
        let account = try FCMServiceAccount(json: Self.json([:]), source: "key.json")
        #expect(account.projectID == "demo-project")
        #expect(account.clientEmail == "pushgate@demo-project.iam.gserviceaccount.com")
        #expect(account.privateKeyID == "abc123")
        #expect(account.tokenURI == "https://oauth2.googleapis.com/token")
    }

    @Test(
        "a file that cannot be used stops with one line naming what is wrong, never the key",
        arguments: [
            (
                nil as String?, ["private_key": "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"],
                "private_key is not an RSA private key"
            ),
            ("client_email", [:], "lacks \"client_email\""),
            ("private_key_id", [:], "lacks \"private_key_id\""),
            ("token_uri", [:], "lacks \"token_uri\""),
            ("project_id", [:], "lacks \"project_id\""),
            (nil, ["type": "authorized_user"], "is a \"authorized_user\" credential, not a service account"),
            (nil, ["token_uri": "ftp://x"], "token_uri is not an http(s) URL"),
        ]
    )
    func refuses(dropping: String?, fields: [String: String], message: String) {
        #expect {
            _ = try FCMServiceAccount(json: Self.json(fields, dropping: dropping), source: "key.json")
        } throws: { error in
            let text = "\(error)"
            return text.contains(message) && text.contains("key.json") && !text.contains("PRIVATE KEY")
        }
    }

    @Test("not JSON, or a missing file")
    func unreadable() {
        #expect(throws: FCMConfigurationError.self) {
            _ = try FCMServiceAccount(json: Data("hello".utf8), source: "key.json")
        }
        #expect {
            _ = try FCMServiceAccount(contentsOf: "/nonexistent/key.json")
        } throws: { "\($0)".contains("cannot read the service-account file /nonexistent/key.json") }
    }
}
