import PushgateCore

/// The Model Context Protocol's two eras as `pushgate mcp` serves them (issue 83): the
/// handshake era (`initialize`, then requests on that session: 2025-11-25 and the
/// revisions before it) and the 2026-07-28 revision, where no session exists and each
/// request carries its own envelope in `params._meta` (the protocol version and the
/// client's capabilities), `server/discover` tells what the server speaks, and every
/// result says its `resultType` (a cacheable one also `ttlMs` and `cacheScope`). The
/// client's first request decides a connection's era, once, as the specification's
/// stdio servers do.
enum MCPProtocol {
    enum Era: Sendable, Equatable {
        case handshake
        case modern
    }

    /// The handshake-era revisions, newest first: an `initialize` asking for another
    /// is answered with the newest.
    static let handshakeVersions = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]
    /// The revisions with a per-request envelope.
    static let modernVersions = ["2026-07-28"]

    static let versionKey = "io.modelcontextprotocol/protocolVersion"
    static let capabilitiesKey = "io.modelcontextprotocol/clientCapabilities"
    static let serverInfoKey = "io.modelcontextprotocol/serverInfo"

    /// Whether a request claims the 2026-07-28 era: it carries the envelope's version
    /// (the handshake itself never does, even stamped).
    static func isEnveloped(method: String, params: [String: JSONValue]) -> Bool {
        method != "initialize" && params["_meta"]?.objectValue?[versionKey] != nil
    }

    /// Checks a 2026-era request's envelope as the specification's ladder does: the
    /// envelope's pair present (else invalid params), the version a string (else
    /// invalid params) that is served (else unsupported, naming those that are).
    static func checkEnvelope(of params: [String: JSONValue]) throws(JSONRPCError) {
        guard let meta = params["_meta"]?.objectValue else {
            throw .invalidParams("params._meta must be an object carrying '\(versionKey)' and '\(capabilitiesKey)'")
        }
        let missing = [versionKey, capabilitiesKey].filter { meta[$0] == nil }
        guard missing.isEmpty else {
            throw .invalidParams("params._meta is missing: \(missing.joined(separator: ", "))")
        }
        guard let version = meta[versionKey]?.stringValue else {
            throw .invalidParams("'\(versionKey)' must be a string")
        }
        guard modernVersions.contains(version) else {
            throw .unsupportedVersion(
                "protocol version \(version.prefix(32)) is not served", requested: .string(version))
        }
    }
}
