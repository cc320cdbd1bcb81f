import PushgateServer
import Testing

@Suite("Client address")
struct ClientAddressTests {
    @Test("networks: IPv4, IPv6, single addresses; bad ones refused")
    func networks() throws {
        let v4 = try #require(IPNetwork("10.0.0.0/8"))
        #expect(v4.contains("10.200.3.4") && !v4.contains("11.0.0.1") && !v4.contains("::1"))
        #expect(v4.contains("::ffff:10.1.1.1"), "IPv4-mapped IPv6 is the IPv4 address")
        let v6 = try #require(IPNetwork("fd00::/8"))
        #expect(v6.contains("fd12:3456::1") && !v6.contains("fe80::1"))
        let one = try #require(IPNetwork("192.0.2.1"))
        #expect(one.contains("192.0.2.1") && !one.contains("192.0.2.2"))
        #expect(try #require(IPNetwork("0.0.0.0/0")).contains("8.8.8.8"))
        for bad in ["", "10.0.0.0/33", "fd00::/129", "example.com", "10.0.0/8", "10.0.0.0/-1", "10.0.0.0/x"] {
            #expect(IPNetwork(bad) == nil, "\(bad)")
        }
    }

    @Test("the peer, unless a trusted proxy names the client in its first X-Forwarded-For hop")
    func resolve() throws {
        let address = ClientAddress(trustedProxies: [try #require(IPNetwork("127.0.0.1"))])
        #expect(address.resolve(peer: "127.0.0.1", forwardedFor: "203.0.113.7, 10.0.0.1") == "203.0.113.7")
        #expect(address.resolve(peer: "127.0.0.1", forwardedFor: " 2001:db8::1 ") == "2001:db8::1")
        #expect(address.resolve(peer: "127.0.0.1", forwardedFor: "not-an-address") == "127.0.0.1")
        #expect(address.resolve(peer: "127.0.0.1", forwardedFor: nil) == "127.0.0.1")
        #expect(address.resolve(peer: "198.51.100.2", forwardedFor: "203.0.113.7") == "198.51.100.2")
        #expect(address.resolve(peer: "::ffff:198.51.100.2", forwardedFor: nil) == "198.51.100.2")
        #expect(address.resolve(peer: nil, forwardedFor: "203.0.113.7") == "local")
    }
}
