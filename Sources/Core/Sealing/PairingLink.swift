import Foundation

/// What `pushgate pair` shows the phone, as a link and its QR code (issue 82):
/// `pushgate://pair?gateway=<url>&pairing=<pairing_id>&code=<code>` — where the
/// gateway is, the pairing the gateway opened, and the code only the agent's machine
/// and the phone know.
public struct PairingLink: Sendable, Hashable, CustomStringConvertible {
    public static let scheme = "pushgate"

    /// The gateway's base URL.
    public let gateway: String
    public let pairingID: String
    public let code: PairingCode

    public init(gateway: String, pairingID: String, code: PairingCode) {
        self.gateway = gateway
        self.pairingID = pairingID
        self.code = code
    }

    /// The link read back; `nil` for anything but a pairing link with a gateway, a
    /// pairing and a readable code (at most 4 KiB).
    public init?(_ text: String) {
        guard text.utf8.count <= 4096, let components = URLComponents(string: text),
            components.scheme?.lowercased() == Self.scheme, components.host?.lowercased() == "pair"
        else { return nil }
        func value(_ name: String) -> String? {
            components.queryItems?.first { $0.name == name }?.value.flatMap { $0.isEmpty ? nil : $0 }
        }
        guard let gateway = value("gateway"), let pairingID = value("pairing"),
            let code = value("code").flatMap(PairingCode.init(typed:))
        else { return nil }
        self.init(gateway: gateway, pairingID: pairingID, code: code)
    }

    /// The link's text, each value percent-encoded but for RFC 3986's unreserved
    /// characters: a gateway URL's own `&`, `=` or `+` stay inside its value.
    public var text: String {
        let unreserved = CharacterSet(
            charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        func encoded(_ value: String) -> String { value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? "" }
        return "\(Self.scheme)://pair?gateway=\(encoded(gateway))&pairing=\(encoded(pairingID))&code=\(code.text)"
    }

    public var description: String { text }
}
