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
        #expect(address.resolve(peer: "127.0.0.1", forwardedFor: " 2001:db8::1 ") == "2001:db8::/64")
        #expect(address.resolve(peer: "127.0.0.1", forwardedFor: "not-an-address") == "127.0.0.1")
        #expect(address.resolve(peer: "127.0.0.1", forwardedFor: nil) == "127.0.0.1")
        #expect(address.resolve(peer: "198.51.100.2", forwardedFor: "203.0.113.7") == "198.51.100.2")
        #expect(address.resolve(peer: "::ffff:198.51.100.2", forwardedFor: nil) == "198.51.100.2")
        #expect(address.resolve(peer: nil, forwardedFor: "203.0.113.7") == "local")
    }

    @Test("an IPv6 client is counted by its /64 (or the prefix set), an IPv4 one by its address")
    func ipv6Networks() {
        let address = ClientAddress(trustedProxies: [])
        let key = { (peer: String) in address.resolve(peer: peer, forwardedFor: nil) }
        #expect(key("2001:db8:1:2::1") == "2001:db8:1:2::/64")
        #expect(key("2001:db8:1:2:ffff:ffff:ffff:ffff") == key("2001:db8:1:2::1"), "any address of the /64")
        #expect(key("2001:db8:1:3::1") != key("2001:db8:1:2::1"), "the next /64 is another client")
        #expect(key("203.0.113.7") == "203.0.113.7" && key("::ffff:203.0.113.7") == "203.0.113.7")
        let exact = ClientAddress(trustedProxies: [], ipv6PrefixLength: 128)
        #expect(exact.resolve(peer: "2001:db8::1", forwardedFor: nil) == "2001:db8::1")
        let wide = ClientAddress(trustedProxies: [], ipv6PrefixLength: 48)
        #expect(wide.resolve(peer: "2001:db8:1:ffff::1", forwardedFor: nil) == "2001:db8:1::/48")
    }

    @Test("connections count against the client's address, a trusted proxy's against the global cap only")
    func connectionKeys() throws {
        let address = ClientAddress(trustedProxies: [try #require(IPNetwork("10.0.0.0/8"))])
        #expect(address.connectionKey(peer: "10.1.2.3") == nil, "a proxy carries many clients")
        #expect(address.connectionKey(peer: "203.0.113.7") == "203.0.113.7")
        #expect(address.connectionKey(peer: "2001:db8:5:6::7") == "2001:db8:5:6::/64")
        #expect(address.connectionKey(peer: nil) == nil)
    }
}
