import Foundation

/// The address a request is counted against: the peer's, or — only when the peer is
/// a trusted proxy — the first `X-Forwarded-For` hop, the client that proxy saw.
/// Anyone can send an `X-Forwarded-For` header; believing it from an untrusted peer
/// would let every request pick its own address and dodge the per-address limits.
public struct ClientAddress: Sendable {
    public let trustedProxies: [IPNetwork]

    public init(trustedProxies: [IPNetwork]) {
        self.trustedProxies = trustedProxies
    }

    /// `peer` is the connection's address text (`nil` for a Unix socket or a test
    /// channel); `forwardedFor` the header's value.
    public func resolve(peer: String?, forwardedFor: String?) -> String {
        guard let peer else { return "local" }
        let normalised = IPNetwork.addressBytes(peer).map(IPNetwork.text(of:)) ?? peer
        guard let forwardedFor, trustedProxies.contains(where: { $0.contains(normalised) }) else { return normalised }
        let first = forwardedFor.split(separator: ",", maxSplits: 1).first.map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        guard let first, let bytes = IPNetwork.addressBytes(first) else { return normalised }
        return IPNetwork.text(of: bytes)
    }
}
