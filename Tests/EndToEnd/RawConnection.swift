import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A plain TCP connection to a gateway, byte by byte: what a slow, idle or
/// half-sending client does, which no HTTP client library lets a test do.
final class RawConnection: Sendable {
    private let descriptor: Int32

    /// Connects to 127.0.0.1:`port` from `source` (another loopback address, such as
    /// 127.0.0.2, is another client); `nil` when the connection is refused.
    init?(port: Int, from source: String = "127.0.0.1") {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(source)
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else {
            close(descriptor)
            return nil
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(descriptor)
            return nil
        }
    }

    deinit { close(descriptor) }

    /// Sends `text`; `false` when the other side already closed.
    @discardableResult
    func send(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            == bytes.count
    }

    /// What arrives within `timeout`, until the other side closes or the time is up;
    /// waited for on a thread of its own (``BlockingWork``), which also notes when the
    /// close came (the task's resumption may come later on a busy machine).
    func receive(within timeout: TimeInterval) async throws -> Received {
        try await BlockingWork.run { self.receiveBlocking(within: timeout) }
    }

    private func receiveBlocking(within timeout: TimeInterval) -> Received {
        var received: [UInt8] = []
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let left = Int32(max(deadline.timeIntervalSinceNow, 0) * 1000)
            guard poll(&poller, 1, left) > 0 else { break }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count <= 0 { return Received(text: String(decoding: received, as: UTF8.self), closedAt: Date()) }
            received += buffer.prefix(count)
        }
        return Received(text: String(decoding: received, as: UTF8.self), closedAt: nil)
    }

    /// What a ``receive(within:)`` read, and when the other side closed (`nil`: open).
    struct Received: Sendable {
        let text: String
        let closedAt: Date?
        var closed: Bool { closedAt != nil }
    }
}
