import Foundation

/// A subscription's endpoint: an `https` URL (or `http`, for a distributor on the
/// operator's own network when the setting allows it) of at most 1,000 bytes, with no
/// user info, whose host is a name or a public address. A name is checked where it
/// resolves, at registration and at every connection (``EndpointAddressRule``).
public struct WebPushEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// What a registration may give.
    public struct Rules: Sendable, Hashable {
        /// `http` endpoints too (`PUSHGATE_WEBPUSH_ALLOW_HTTP`).
        public var allowsHTTP: Bool
        /// Hosts that are or resolve to loopback, private, link-local, multicast or
        /// unspecified addresses (`PUSHGATE_WEBPUSH_ALLOW_PRIVATE_ENDPOINTS`).
        public var allowsPrivateAddresses: Bool

        public init(allowsHTTP: Bool = false, allowsPrivateAddresses: Bool = false) {
            self.allowsHTTP = allowsHTTP
            self.allowsPrivateAddresses = allowsPrivateAddresses
        }

        /// What a stored endpoint is read with: anything a registration may have let in.
        public static let stored = Rules(allowsHTTP: true, allowsPrivateAddresses: true)
    }

    public static let maxBytes = 1000

    public let url: String
    /// `https` or `http`.
    public let scheme: String
    /// The host as the URL names it (an IPv6 literal without its brackets), lower case.
    public let host: String
    public let port: Int
    /// The path and query, as sent (`/push/abc?x=1`); `/` when empty.
    public let pathAndQuery: String

    public init(_ url: String, rules: Rules) throws(Problem) {
        guard url.utf8.count <= Self.maxBytes else { throw .tooLong(url.utf8.count) }
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased() else {
            throw .notAURL
        }
        guard scheme == "https" || (scheme == "http" && rules.allowsHTTP) else {
            throw .scheme(scheme, httpAllowed: rules.allowsHTTP)
        }
        guard components.percentEncodedUser == nil, components.percentEncodedPassword == nil else {
            throw .userInfo
        }
        guard components.fragment == nil else { throw .fragment }
        // The host as written: a percent-encoded one is no host a resolver reads alike.
        guard let rawHost = components.percentEncodedHost, !rawHost.isEmpty, !rawHost.contains("%") else {
            throw .noHost
        }
        let host = rawHost.hasPrefix("[") && rawHost.hasSuffix("]") ? String(rawHost.dropFirst().dropLast()) : rawHost
        let lowered = host.lowercased()
        if let address = EndpointAddressRule.literal(lowered) {
            guard rules.allowsPrivateAddresses || EndpointAddressRule.isPublic(address) else {
                throw .privateAddress(lowered)
            }
        } else if !EndpointAddressRule.isHostName(lowered) {
            throw .notAHostName(lowered)
        }
        let port = components.port ?? (scheme == "https" ? 443 : 80)
        guard (1...65535).contains(port) else { throw .notAURL }
        self.url = url
        self.scheme = scheme
        self.host = lowered
        self.port = port
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        pathAndQuery = components.percentEncodedQuery.map { path + "?" + $0 } ?? path
    }

    /// `scheme://host[:port]`: what VAPID's `aud` names and what connections are pooled by.
    public var origin: String { "\(scheme)://\(authority)" }

    /// `:authority`/`Host`: the host, with the port when it is not the scheme's.
    public var authority: String {
        let host = self.host.contains(":") ? "[\(self.host)]" : self.host
        return port == (scheme == "https" ? 443 : 80) ? host : "\(host):\(port)"
    }

    /// The origin only: an endpoint's path is a capability (whoever has it can push),
    /// never logged.
    public var description: String { origin }

    /// Why an endpoint is refused, as the rest of a sentence naming the field.
    public enum Problem: Error, Equatable, CustomStringConvertible {
        case tooLong(Int)
        case notAURL
        case scheme(String, httpAllowed: Bool)
        case userInfo
        case fragment
        case noHost
        case notAHostName(String)
        case privateAddress(String)
        /// The name resolves to such an address (found at registration or at a connection).
        case resolvesPrivately(String)

        public var description: String {
            switch self {
            case .tooLong(let count): "is \(count) bytes; at most \(WebPushEndpoint.maxBytes) are allowed"
            case .notAURL: "must be an absolute URL"
            case .scheme(let scheme, let httpAllowed):
                "must be an \(httpAllowed ? "https or http" : "https") URL, not \(scheme.isEmpty ? "none" : scheme)"
            case .userInfo: "must not carry user info (user:password@)"
            case .fragment: "must not carry a fragment (#…)"
            case .noHost: "must name a host"
            case .notAHostName(let host): "names no valid host (\(host))"
            case .privateAddress(let host):
                "names a loopback, private, link-local, multicast or unspecified address (\(host))"
            case .resolvesPrivately(let host):
                "names a host that resolves to a loopback, private, link-local, multicast or unspecified address (\(host))"
            }
        }
    }
}
