#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An IPv4 or IPv6 network in CIDR notation (`10.0.0.0/8`, `fd00::/8`, or one
/// address alone): what `PUSHGATE_TRUSTED_PROXIES` lists.
public struct IPNetwork: Sendable, Hashable, CustomStringConvertible {
    /// The network's address bytes: 4 for IPv4, 16 for IPv6.
    let bytes: [UInt8]
    let prefixLength: Int

    /// `nil` unless `text` is an address, optionally with `/prefix` in range.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let bytes = Self.addressBytes(String(parts[0])) else { return nil }
        let maxLength = bytes.count * 8
        var length = maxLength
        if parts.count == 2 {
            guard let given = Int(parts[1]), (0...maxLength).contains(given) else { return nil }
            length = given
        }
        self.bytes = bytes
        self.prefixLength = length
    }

    /// Whether the address `text` lies in this network (IPv4-mapped IPv6 counts as IPv4).
    public func contains(_ text: String) -> Bool {
        guard let address = Self.addressBytes(text), address.count == bytes.count else { return false }
        for bit in 0..<prefixLength {
            let mask = UInt8(0x80) >> UInt8(bit % 8)
            if address[bit / 8] & mask != bytes[bit / 8] & mask { return false }
        }
        return true
    }

    public var description: String {
        "\(Self.text(of: bytes))/\(prefixLength)"
    }

    /// The bytes of an IPv4 or IPv6 address (IPv4-mapped IPv6 as its 4 IPv4 bytes), or `nil`.
    static func addressBytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
            return Array(bytes[12...])
        }
        return bytes
    }

    /// An address's usual text: for IPv4-mapped IPv6, the IPv4 form.
    static func text(of bytes: [UInt8]) -> String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        let ok = bytes.withUnsafeBytes { raw in inet_ntop(family, raw.baseAddress, &buffer, socklen_t(buffer.count)) }
        guard ok != nil else { return "?" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
