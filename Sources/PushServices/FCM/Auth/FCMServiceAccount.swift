import Foundation
import _CryptoExtras

/// A Firebase project's service-account key, as the console hands it out
/// (`<project>-firebase-adminsdk-….json`): who the gateway signs in as, with which
/// RSA key, where to trade the signed assertion for an access token, and the
/// project to send for. The private key is never logged, shown or copied out.
public struct FCMServiceAccount: Sendable {
    /// `client_email`: the JWT's `iss`.
    public let clientEmail: String
    /// `private_key_id`: the JWT's `kid`.
    public let privateKeyID: String
    /// `private_key`: PKCS#8 (or PKCS#1) PEM, RSA.
    let privateKey: _RSA.Signing.PrivateKey
    /// `token_uri`: where the assertion is posted (Google's token URL in a real key;
    /// an emulator's own in a local one).
    public let tokenURI: String
    /// `project_id`.
    public let projectID: String

    /// Reads and checks a service-account JSON; the error names the file and what is
    /// wrong with it, never the key.
    public init(contentsOf path: String) throws(FCMConfigurationError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw FCMConfigurationError("cannot read the service-account file \(path)")
        }
        try self.init(json: data, source: path)
    }

    /// Parses a service-account JSON; `source` names it in errors.
    public init(json data: Data, source: String) throws(FCMConfigurationError) {
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw FCMConfigurationError("\(source) is not a JSON object (a Firebase service-account key)")
        }
        func field(_ name: String) throws(FCMConfigurationError) -> String {
            guard let value = object[name] as? String, !value.isEmpty else {
                throw FCMConfigurationError("\(source) lacks \"\(name)\" (is it a Firebase service-account key?)")
            }
            return value
        }
        if let type = object["type"] as? String, type != "service_account" {
            throw FCMConfigurationError("\(source) is a \"\(type)\" credential, not a service account")
        }
        clientEmail = try field("client_email")
        privateKeyID = try field("private_key_id")
        projectID = try field("project_id")
        tokenURI = try field("token_uri")
        guard let url = URL(string: tokenURI), ["https", "http"].contains(url.scheme), url.host != nil else {
            throw FCMConfigurationError("\(source): token_uri is not an http(s) URL")
        }
        do {
            privateKey = try _RSA.Signing.PrivateKey(pemRepresentation: try field("private_key"))
        } catch let error as FCMConfigurationError {
            throw error
        } catch {
            throw FCMConfigurationError("\(source): private_key is not an RSA private key in PEM")
        }
    }
}

/// Why the FCM settings or the service-account key cannot be used, in one line.
public struct FCMConfigurationError: Error, Sendable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
