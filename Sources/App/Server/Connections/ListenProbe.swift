import NIOCore
import NIOPosix

/// Whether the gateway can listen where it is told, asked before it opens, fetches
/// or logs anything: a port in use stops the start with one line naming it, and no
/// database file has been made, no access token fetched. The server binds for good
/// a moment later, with the same `SO_REUSEADDR`.
enum ListenProbe {
    /// Why `host:port` cannot be listened on (`the address is in use`, …), or `nil`;
    /// port 0 (any free one) always can.
    static func problem(host: String, port: Int) async -> String? {
        guard port != 0 else { return nil }
        do {
            let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .bind(host: host, port: port).get()
            try await channel.close()
            return nil
        } catch let error as IOError {
            return error.errnoCode == EADDRINUSE ? "the address is in use" : "\(error)"
        } catch {
            return "\(error)"
        }
    }
}
