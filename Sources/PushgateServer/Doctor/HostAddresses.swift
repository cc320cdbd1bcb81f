import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A host name's addresses, as the system resolver gives them (`getaddrinfo`).
enum HostAddresses {
    /// The host's IPv4 and IPv6 addresses, in the resolver's order; empty when it
    /// does not resolve. An address literal resolves to itself.
    static func resolve(_ host: String) -> [String] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var first: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &first) == 0 else { return [] }
        defer { freeaddrinfo(first) }
        var addresses: [String] = []
        var next = first
        while let info = next?.pointee {
            next = info.ai_next
            var text = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            guard
                getnameinfo(
                    info.ai_addr, info.ai_addrlen, &text, socklen_t(text.count), nil, 0, NI_NUMERICHOST) == 0
            else { continue }
            let address = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if !addresses.contains(address) { addresses.append(address) }
        }
        return addresses
    }
}
