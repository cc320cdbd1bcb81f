import Foundation

/// A host and port to reach over TLS.
public struct HTTP2Endpoint: Sendable, Hashable, CustomStringConvertible {
    public let host: String
    public let port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `https://host[:port]`; a path, a query or another scheme is refused
    /// (the providers' paths are fixed).
    public init?(url: String) {
        guard let components = URLComponents(string: url), components.scheme == "https",
            let host = components.host, !host.isEmpty, components.path.isEmpty || components.path == "/",
            components.query == nil
        else { return nil }
        self.host = host
        self.port = components.port ?? 443
    }

    /// `:authority`: the host, with the port when it is not 443.
    public var authority: String { port == 443 ? host : "\(host):\(port)" }

    public var description: String { "https://\(authority)" }
}
