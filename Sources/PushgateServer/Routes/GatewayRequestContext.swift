import Hummingbird
import NIOCore

/// The context of every request the gateway serves: Hummingbird's basics, the
/// connection's peer address, and the client address the rate limits counted the
/// request against (set by ``RateLimitMiddleware``).
public struct GatewayRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?
    /// The peer, or the client a trusted proxy named; `nil` before the limits ran.
    public var clientAddress: String?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}
