import NIOCore
import PushgateHTTP2
import Testing

/// Host names resolved off the event loops, with a deadline and a bound.
@Suite("Host resolver")
struct HostResolverTests {
    @Test("literals and localhost resolve to their addresses' bytes")
    func literals() async throws {
        let resolver = HostResolver(threads: 1, maxWaiting: 4)
        let v4 = try await resolver.resolve(host: "127.0.0.1", port: 443, timeout: .seconds(10))
        #expect(v4.map(\.ipBytes) == [[127, 0, 0, 1]])
        let v6 = try await resolver.resolve(host: "::1", port: 443, timeout: .seconds(10))
        #expect(v6.map(\.ipBytes) == [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]])
        #expect(v6.first?.port == 443)
    }

    @Test("a name that does not resolve, and look-ups over the bound, fail at once with the reason")
    func failures() async throws {
        let resolver = HostResolver(threads: 1, maxWaiting: 0)
        await #expect(throws: HostResolver.Failure.busy) {
            try await resolver.resolve(host: "127.0.0.1", port: 443, timeout: .seconds(10))
        }
        let open = HostResolver(threads: 1, maxWaiting: 4)
        await #expect(throws: (any Error).self) {
            try await open.resolve(host: "no-such-host.invalid", port: 443, timeout: .seconds(10))
        }
    }
}
