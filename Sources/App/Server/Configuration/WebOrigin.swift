import Foundation

/// A web origin as `PUSHGATE_CORS_ORIGINS` names it and a browser sends it (``AllowedOrigins``).
enum WebOrigin {
    /// `text` as a browser sends it in `Origin` — `scheme://host[:port]`, lower
    /// case, the default port left out — when it names a web origin (http or https,
    /// no path, query, user or fragment); else `nil`.
    static func normalized(_ text: String) -> String? {
        guard let components = URLComponents(string: text),
            let scheme = components.scheme?.lowercased(), ["http", "https"].contains(scheme),
            let host = components.host?.lowercased(), !host.isEmpty,
            components.user == nil, components.password == nil, components.path.isEmpty,
            components.query == nil, components.fragment == nil
        else { return nil }
        // A port written but not read (one that overflows) is no port at all.
        if components.rangeOfPort != nil, components.port == nil { return nil }
        let port = components.port
        guard let port, port != (scheme == "https" ? 443 : 80) else { return "\(scheme)://\(host)" }
        guard (1...65535).contains(port) else { return nil }
        return "\(scheme)://\(host):\(port)"
    }
}
