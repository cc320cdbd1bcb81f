#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Which addresses an endpoint may reach: the guard against a subscription that
/// points the gateway at its own network (SSRF). Loopback, private, shared
/// (carrier-grade NAT), link-local, multicast, reserved and unspecified addresses are
/// refused, in IPv4 and IPv6; so are IPv6 addresses that embed another (IPv4-mapped,
/// -translated, 6to4, Teredo, local-use NAT64), but for NAT64's well-known prefix,
/// where the embedded IPv4 address decides.
public enum EndpointAddressRule {
    /// The bytes of an IP literal (4 or 16), `nil` for anything else. Only the
    /// canonical forms: `127.1` or `0x7f.0.0.1` are no literal here (and no host name
    /// either, ``isHostName(_:)``), though a resolver would read them as one.
    public static func literal(_ host: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, host, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { Array($0) }
        }
        return nil
    }

    /// A DNS name: labels of letters, digits, `-` and `_`, 1 to 63 bytes each, 253 in
    /// all, the last not all digits (no top-level domain is; `127.1` is a number).
    public static func isHostName(_ host: String) -> Bool {
        let bytes = Array(host.utf8)
        guard (1...253).contains(bytes.count) else { return false }
        let labels = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard
            labels.allSatisfy({ label in
                (1...63).contains(label.count)
                    && label.allSatisfy { $0.isLetterOrDigit || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }
            }), let last = labels.last
        else { return false }
        return !last.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    /// Whether `address` (4 or 16 bytes) is one a push service may have.
    public static func isPublic(_ address: [UInt8]) -> Bool {
        switch address.count {
        case 4: return isPublicV4(address[0], address[1], address[2], address[3])
        case 16: return isPublicV6(address)
        default: return false
        }
    }

    private static func isPublicV4(_ a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) -> Bool {
        switch a {
        case 0, 10, 127: return false  // this network, private, loopback
        case 100 where (64...127).contains(b): return false  // shared address space (CGNAT)
        case 169 where b == 254: return false  // link-local
        case 172 where (16...31).contains(b): return false  // private
        case 192 where b == 168: return false  // private
        case 192 where b == 0 && (c == 0 || c == 2): return false  // protocol assignments, documentation
        case 192 where b == 88 && c == 99: return false  // 6to4 relays: lead to whatever they translate
        case 198 where b == 18 || b == 19: return false  // benchmarking
        case 198 where b == 51 && c == 100, 203 where b == 0 && c == 113: return false  // documentation
        case 224...255: return false  // multicast, reserved, broadcast
        default: return true
        }
    }

    /// Only global unicast (2000::/3) is a push service's, less the prefixes that
    /// carry another address inside (a network that translates them leads wherever
    /// the inner address does) and those reserved for documentation. NAT64's
    /// well-known prefix is the one exception: an IPv6-only network reaches public
    /// IPv4 services through it, and its embedded address is always at the same place.
    private static func isPublicV6(_ bytes: [UInt8]) -> Bool {
        // 64:ff9b::/96 (RFC 6052): the embedded IPv4 address decides.
        if bytes[0..<12].elementsEqual([0, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0]) {
            return isPublicV4(bytes[12], bytes[13], bytes[14], bytes[15])
        }
        // Outside 2000::/3: ::/8 (unspecified, loopback, IPv4-compatible, -mapped and
        // -translated ::ffff:0:0:0/96), 100::/64 (discard), 64:ff9b:1::/48 (local-use
        // NAT64, whose embedding the network chooses), unique local, link-local,
        // site-local, multicast: never a push service.
        guard bytes[0] & 0xE0 == 0x20 else { return false }
        switch (bytes[0], bytes[1]) {
        // 2001::/23, IETF protocol assignments: Teredo (2001::/32), benchmarking,
        // ORCHID; and 2001:db8::/32, documentation.
        case (0x20, 0x01) where bytes[2] < 0x02 || (bytes[2] == 0x0D && bytes[3] == 0xB8): return false
        case (0x20, 0x02): return false  // 6to4 (2002::/16): an IPv4 address inside
        case (0x3F, 0xFF) where bytes[2] & 0xF0 == 0: return false  // 3fff::/20, documentation (RFC 9637)
        default: return true
        }
    }
}

extension UInt8 {
    fileprivate var isLetterOrDigit: Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self)
    }
}
