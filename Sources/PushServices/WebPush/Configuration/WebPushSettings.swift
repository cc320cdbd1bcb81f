import Foundation
import PushgateCore
import PushgateHTTP2

/// Web Push's settings (`PUSHGATE_WEBPUSH_*`), declared here, in its module: the
/// gateway's catalogue lists them (``WebPushSettings/all``),
/// ``WebPushConfiguration/read(from:)`` reads them.
extension Setting {
    public static var webPushVAPIDKeyPath: Setting<String> {
        .readableFile(
            "webpush_vapid_key_path",
            "VAPID private key (PEM, P-256; pushgate keygen --vapid FILE), for browsers and UnifiedPush.")
    }
    public static var webPushSubject: Setting<String> {
        Setting<String>(
            "webpush_subject", "VAPID contact the push services may reach: mailto:… or https:…."
        ) { text in
            (text.hasPrefix("mailto:") || text.hasPrefix("https:")) && text.utf8.count <= 200
                && text.utf8.allSatisfy { (0x21...0x7E).contains($0) }
                ? .success(text) : .failure(.mustBe("a mailto: or https: URI", not: text))
        }
    }
    public static var webPushCAFile: Setting<String> {
        .readableFile("webpush_ca_file", "PEM file of extra CA certificates to trust for Web Push endpoints.")
    }
    public static var webPushAllowPrivateEndpoints: Setting<Bool> {
        .onOff(
            "webpush_allow_private_endpoints", default: "off",
            "Accept endpoints on loopback, private and link-local addresses (a distributor on your own network).")
    }
    public static var webPushAllowHTTP: Setting<Bool> {
        .onOff("webpush_allow_http", default: "off", "Accept http:// endpoints (a distributor on your own network).")
    }
    public static var webPushTTL: Setting<Int> {
        .number(
            "webpush_ttl", default: "86400", in: 0...2_419_200, expected: "seconds, 0 to 2419200 (28 days)",
            "Seconds a push service keeps a push for an offline browser or phone (TTL).")
    }
    public static var webPushDeclarativeHosts: Setting<Set<String>> {
        Setting<Set<String>>(
            "webpush_declarative_hosts", default: "web.push.apple.com",
            "Push services whose subscriptions get Declarative Web Push (shown with no service worker): host names, comma-separated."
        ) { text in
            let hosts = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
                .filter { !$0.isEmpty }
            guard
                hosts.allSatisfy({ host in
                    host.utf8.count <= 253
                        && host.utf8.allSatisfy {
                            (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2E || $0 == 0x2D
                        }
                })
            else { return .failure(.mustBe("host names, comma-separated", not: String(text.prefix(80)))) }
            return .success(Set(hosts))
        }
    }
    public static var webPushNavigateURL: Setting<String> {
        Setting<String>(
            "webpush_navigate_url",
            "The page a Declarative Web Push opens when its event names no web_url (https:…); without it such a push goes in the service worker's form."
        ) { text in
            text.hasPrefix("https://") && text.utf8.count <= 2048 && text.utf8.allSatisfy { (0x21...0x7E).contains($0) }
                ? .success(text) : .failure(.mustBe("an https:// URL", not: String(text.prefix(80))))
        }
    }
    public static var webPushConnections: Setting<Int> {
        .number("webpush_connections", default: "1", in: 1...16, "Connections to each push service's origin, 1-16.")
    }
}

/// The list of Web Push's settings.
public enum WebPushSettings {
    /// In the order help and `pushgate config` show them.
    public static let all: [AnySetting] = [
        Setting<String>.webPushVAPIDKeyPath.erased, Setting<String>.webPushSubject.erased,
        Setting<String>.webPushCAFile.erased, Setting<Bool>.webPushAllowPrivateEndpoints.erased,
        Setting<Bool>.webPushAllowHTTP.erased, Setting<Int>.webPushTTL.erased, Setting<Int>.webPushConnections.erased,
        Setting<Set<String>>.webPushDeclarativeHosts.erased, Setting<String>.webPushNavigateURL.erased,
    ]

    /// One VAPID key serves every app: browsers and distributors know the gateway, not
    /// the app.
    public static let perApp: [AnySetting] = []
}
