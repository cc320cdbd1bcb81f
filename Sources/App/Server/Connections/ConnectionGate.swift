import Metrics
import NIOCore

/// The first handler of every connection, next to the socket: answers a connection
/// over the cap with 503 and closes it, and closes one whose request does not arrive
/// whole (head and body) within the receive time-out of its first byte. It sees
/// bytes before the HTTP decoder does, so headers sent one byte at a time count;
/// ``RequestReceivedTracker``, after the decoder, tells it where a request ends.
final class ConnectionGate: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private static let refusal: String = {
        let body = #"{"error":{"message":"too many open connections; retry shortly","status":"UNAVAILABLE"}}"# + "\n"
        return "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json; charset=utf-8\r\n"
            + "Content-Length: \(body.utf8.count)\r\nRetry-After: 1\r\nConnection: close\r\n\r\n" + body
    }()

    private let admitted: Bool
    private let receiveTimeout: TimeAmount
    private var deadline: Scheduled<Void>?
    private var refused = false

    init(admitted: Bool, receiveTimeout: TimeAmount) {
        self.admitted = admitted
        self.receiveTimeout = receiveTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive, !admitted { refuse(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        guard admitted else { return refuse(context) }
        context.fireChannelActive()
    }

    private func refuse(_ context: ChannelHandlerContext) {
        guard !refused else { return }
        refused = true
        let answer = context.channel.allocator.buffer(string: Self.refusal)
        context.writeAndFlush(NIOAny(answer)).assumeIsolated().whenComplete { [channel = context.channel] _ in
            channel.close(promise: nil)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // A refused connection's request is never read.
        guard admitted else { return }
        requestStarted(on: context.channel)
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        requestReceived()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        requestReceived()
    }

    /// Bytes of a request arrived: its clock runs unless it already does.
    func requestStarted(on channel: any Channel) {
        guard deadline == nil else { return }
        deadline = channel.eventLoop.assumeIsolated().scheduleTask(in: receiveTimeout) {
            Counter(label: "pushgate_http_connections_closed_total", dimensions: [("reason", "receive_timeout")])
                .increment()
            channel.close(promise: nil)
        }
    }

    /// The request's last part arrived: no deadline until the next one starts.
    func requestReceived() {
        deadline?.cancel()
        deadline = nil
    }
}
