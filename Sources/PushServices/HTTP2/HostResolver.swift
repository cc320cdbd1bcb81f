import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Resolves host names off the event loops, on a few threads of its own, each look-up
/// with a deadline and no more than a bounded number waiting: a name whose servers
/// never answer (anyone may register one) holds neither an event loop nor the
/// cooperative pool, and a flood of them is turned away rather than queued.
public final class HostResolver: Sendable {
    /// Why a name gave no address.
    public enum Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// The resolver said the name has no address (or another error, its text).
        case noAddress(String)
        /// No answer within the deadline.
        case timedOut
        /// Too many look-ups under way: not tried.
        case busy

        public var description: String {
            switch self {
            case .noAddress(let reason): "it does not resolve (\(reason))"
            case .timedOut: "its look-up timed out"
            case .busy: "too many look-ups are under way"
            }
        }
    }

    /// Shared by the whole process.
    public static let shared = HostResolver(threads: 4, maxWaiting: 256)

    private let pool: NIOThreadPool
    private let waiting = NIOLockedValueBox(0)
    private let maxWaiting: Int

    public init(threads: Int, maxWaiting: Int) {
        pool = NIOThreadPool(numberOfThreads: max(1, threads))
        pool.start()
        self.maxWaiting = maxWaiting
    }

    /// The addresses of `host` (TCP, IPv4 and IPv6, in the resolver's order), on
    /// `eventLoop`, within `timeout`.
    public func resolve(host: String, port: Int, on eventLoop: any EventLoop, timeout: TimeAmount)
        -> EventLoopFuture<[SocketAddress]>
    {
        let admitted = waiting.withLockedValue { count in
            guard count < maxWaiting else { return false }
            count += 1
            return true
        }
        guard admitted else { return eventLoop.makeFailedFuture(Failure.busy) }
        let promise = eventLoop.makePromise(of: [SocketAddress].self)
        // Completed once: by the answer or by the deadline, whichever takes it first.
        let pending = NIOLockedValueBox<EventLoopPromise<[SocketAddress]>?>(promise)
        let deadline = eventLoop.scheduleTask(in: timeout) {
            pending.withLockedValue { $0.take() }?.fail(Failure.timedOut)
        }
        pool.submit { [waiting] state in
            let result: Result<[SocketAddress], any Error> =
                state == .active ? Self.lookUp(host: host, port: port) : .failure(Failure.noAddress("shut down"))
            waiting.withLockedValue { $0 -= 1 }
            deadline.cancel()
            pending.withLockedValue { $0.take() }?.completeWith(result)
        }
        return promise.futureResult
    }

    /// ``resolve(host:port:on:timeout:)`` from async code.
    public func resolve(host: String, port: Int, timeout: Duration) async throws -> [SocketAddress] {
        try await resolve(
            host: host, port: port, on: MultiThreadedEventLoopGroup.singleton.next(), timeout: TimeAmount(timeout)
        ).get()
    }

    private static func lookUp(host: String, port: Int) -> Result<[SocketAddress], any Error> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
            hints.ai_socktype = SOCK_STREAM
        #endif
        hints.ai_protocol = Int32(IPPROTO_TCP)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            return .failure(Failure.noAddress(String(cString: gai_strerror(status))))
        }
        defer { freeaddrinfo(first) }
        var addresses: [SocketAddress] = []
        var next: UnsafeMutablePointer<addrinfo>? = first
        while let entry = next {
            if let address = entry.pointee.ai_addr {
                switch entry.pointee.ai_family {
                case AF_INET:
                    address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                        addresses.append(SocketAddress($0.pointee, host: host))
                    }
                case AF_INET6:
                    address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                        addresses.append(SocketAddress($0.pointee, host: host))
                    }
                default: break
                }
            }
            next = entry.pointee.ai_next
        }
        return addresses.isEmpty ? .failure(Failure.noAddress("no IPv4 or IPv6 address")) : .success(addresses)
    }
}

extension SocketAddress {
    /// The address's bytes: 4 for IPv4, 16 for IPv6, none for a Unix socket.
    public var ipBytes: [UInt8] {
        // By offset (the same on Linux and the BSDs): the address follows the family
        // and port (and IPv6's flow information).
        switch self {
        case .v4(let address):
            return withUnsafeBytes(of: address.address) { Array($0[4..<8]) }
        case .v6(let address):
            return withUnsafeBytes(of: address.address) { Array($0[8..<24]) }
        case .unixDomainSocket:
            return []
        }
    }
}

extension HTTP2Endpoint {
    /// The addresses its host resolves to, as text, each once (`pushgate doctor`);
    /// empty when it does not resolve within 10 seconds.
    public func resolvedAddresses() async -> [String] {
        var addresses: [String] = []
        for address in (try? await HostResolver.shared.resolve(host: host, port: port, timeout: .seconds(10))) ?? [] {
            if let text = address.ipAddress, !addresses.contains(text) { addresses.append(text) }
        }
        return addresses
    }
}
