import Foundation

/// A subscription's endpoint: an `https` URL (or `http`, for a distributor on the
/// operator's own network when the setting allows it) of at most 1,000 bytes, with no
/// user info, whose host is a name or a public address, and whose port (if written) is
/// 1–65535. The host is kept in one spelling — ASCII (an internationalised name in its
/// `xn--` form), lower case, no trailing dot —: the one checked where it resolves, at
/// registration and at every connection (``EndpointAddressRule``), and the one every
/// request names.
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
        // The host in ASCII (an internationalised name in its IDNA `xn--` form, the
        // one a resolver reads); a percent-encoded one is no host a resolver reads alike.
        guard let rawHost = components.encodedHost, !rawHost.isEmpty, !rawHost.contains("%") else {
            throw .noHost
        }
        let host = rawHost.hasPrefix("[") && rawHost.hasSuffix("]") ? String(rawHost.dropFirst().dropLast()) : rawHost
        // One spelling per host: what is checked, resolved, pooled, signed for and
        // connected to (`PUSH.example.` is `push.example`).
        var lowered = host.lowercased()
        if lowered.hasSuffix("."), EndpointAddressRule.literal(lowered) == nil { lowered.removeLast() }
        if let address = EndpointAddressRule.literal(lowered) {
            guard rules.allowsPrivateAddresses || EndpointAddressRule.isPublic(address) else {
                throw .privateAddress(lowered)
            }
        } else if !EndpointAddressRule.isHostName(lowered) {
            throw .notAHostName(lowered)
        }
        let port: Int
        switch Self.writtenPort(in: url) {
        case .none: port = scheme == "https" ? 443 : 80
        case .some(let text):
            // URLComponents answers no port for one that overflows, which would read
            // as the default: the digits as written decide.
            guard text.count <= 5, text.allSatisfy({ ("0"..."9").contains($0) }), let number = Int(text),
                (1...65535).contains(number)
            else { throw .port(String(text.prefix(24))) }
            port = number
        }
        self.url = url
        self.scheme = scheme
        self.host = lowered
        self.port = port
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        pathAndQuery = components.percentEncodedQuery.map { path + "?" + $0 } ?? path
    }

    /// The port of an absolute URL's authority as written (without its `:`), `nil`
    /// when it names none; an empty one (`https://h:/`) is none, as RFC 3986 reads it.
    static func writtenPort(in url: String) -> Substring? {
        guard let start = url.range(of: "://")?.upperBound else { return nil }
        let rest = url[start...]
        var authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            authority = authority[authority.index(after: close)...]
        }
        guard let colon = authority.lastIndex(of: ":") else { return nil }
        let port = authority[authority.index(after: colon)...]
        return port.isEmpty ? nil : port
    }

    /// The URL a request goes to: the endpoint as checked (its host in the one
    /// spelling that was resolved and permitted), never the text as registered.
    public var requestURL: String { origin + pathAndQuery }

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
        case port(String)
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
            case .port(let port): "names no port from 1 to 65535 (\(port))"
            case .privateAddress(let host):
                "names a loopback, private, link-local, multicast or unspecified address (\(host))"
            case .resolvesPrivately(let host):
                "names a host that resolves to a loopback, private, link-local, multicast or unspecified address (\(host))"
            }
        }
    }
}
