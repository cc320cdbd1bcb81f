import Foundation

/// The address a request is counted against: the peer's, or — only when the peer is
/// a trusted proxy — the first `X-Forwarded-For` hop, the client that proxy saw.
/// Anyone can send an `X-Forwarded-For` header; believing it from an untrusted peer
/// would let every request pick its own address and dodge the per-address limits.
/// An IPv6 client is counted by its network (a /64 unless set otherwise): one host
/// holds a whole /64 and may speak from any address in it.
public struct ClientAddress: Sendable {
    public let trustedProxies: [IPNetwork]
    public let ipv6PrefixLength: Int

    public init(trustedProxies: [IPNetwork], ipv6PrefixLength: Int = 64) {
        self.trustedProxies = trustedProxies
        self.ipv6PrefixLength = min(max(ipv6PrefixLength, 1), 128)
    }

    /// `peer` is the connection's address text (`nil` for a Unix socket or a test
    /// channel); `forwardedFor` the header's value.
    public func resolve(peer: String?, forwardedFor: String?) -> String {
        guard let peer else { return "local" }
        guard let peerBytes = IPNetwork.addressBytes(peer) else { return peer }
        let normalised = IPNetwork.text(of: peerBytes)
        guard let forwardedFor, isTrustedProxy(normalised) else { return key(of: peerBytes) }
        let first = forwardedFor.split(separator: ",", maxSplits: 1).first.map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        guard let first, let bytes = IPNetwork.addressBytes(first) else { return key(of: peerBytes) }
        return key(of: bytes)
    }

    /// What a new connection from `peer` counts against: its key, or `nil` for a
    /// trusted proxy (its connections carry many clients, known only once their
    /// requests are read) and for a peer with no address.
    public func connectionKey(peer: String?) -> String? {
        guard let peer, let bytes = IPNetwork.addressBytes(peer), !isTrustedProxy(IPNetwork.text(of: bytes)) else {
            return nil
        }
        return key(of: bytes)
    }

    private func isTrustedProxy(_ address: String) -> Bool {
        trustedProxies.contains { $0.contains(address) }
    }

    /// An IPv4 address itself; an IPv6 one's network, as `2001:db8:1:2::/64`.
    func key(of bytes: [UInt8]) -> String {
        guard bytes.count == 16, ipv6PrefixLength < 128 else { return IPNetwork.text(of: bytes) }
        var network = bytes
        for bit in ipv6PrefixLength..<128 {
            network[bit / 8] &= ~(UInt8(0x80) >> UInt8(bit % 8))
        }
        return "\(IPNetwork.text(of: network))/\(ipv6PrefixLength)"
    }
}
