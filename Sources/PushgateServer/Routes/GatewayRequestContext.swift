import Hummingbird
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

    /// Completed once the connection closes: a call that waits (``untilClientLeaves(_:)``)
    /// ends with it.
    private let closed: EventLoopFuture<Void>

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
        closed = source.channel.closeFuture
    }

    /// Runs `work`, cancelled when the client's connection closes first: a long wait
    /// (`awaitDecision`) holds nothing for a caller that left.
    func untilClientLeaves<Value: Sendable>(_ work: @escaping @Sendable () async throws -> Value) async throws
        -> Value
    {
        let left = Completion<Void>()
        closed.whenComplete { _ in left.complete(()) }
        return try await withThrowingTaskGroup(of: Value?.self) { group in
            group.addTask { try await work() }
            group.addTask {
                _ = await left.wait()
                return nil
            }
            defer { group.cancelAll() }
            while let next = try await group.next() {
                if let value = next { return value }
                // The client left: the wait is cancelled, and its answer goes nowhere.
                throw CancellationError()
            }
            throw CancellationError()
        }
    }
}
