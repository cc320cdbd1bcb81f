import Hummingbird
import NIOConcurrencyHelpers
import NIOCore
import PushgateCore

/// The context of every request the gateway serves: Hummingbird's basics, the
/// connection's peer address, and the client address the rate limits counted the
/// request against (set by ``RateLimitMiddleware``).
public struct GatewayRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?
    /// The peer, or the client a trusted proxy named; `nil` before the limits ran.
    public var clientAddress: String?

    /// The connection: a call that waits (``untilClientLeaves(_:)``) ends once its
    /// client has gone (``ClientDeparture``).
    private let channel: any Channel

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
        channel = source.channel
    }

    /// Runs `work`, cancelled when the client goes first (closes its side or the connection): a long wait
    /// (`awaitDecision`) holds nothing for a caller that left. One task of its own
    /// (cancelled with the request's), not a group of two: a thousand calls held
    /// at once each cost one.
    func untilClientLeaves<Value: Sendable>(_ work: @escaping @Sendable () async throws -> Value) async throws
        -> Value
    {
        let task = Task { try await work() }
        let left = NIOLockedValueBox(false)
        ClientDeparture.of(channel).whenComplete { _ in
            left.withLockedValue { $0 = true }
            task.cancel()
        }
        let value = try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            task.cancel()
        }
        // The client left: its answer goes nowhere.
        if left.withLockedValue({ $0 }) { throw CancellationError() }
        return value
    }
}
