import NIOCore
import NIOTLS

/// What an HTTP/2 client sends first (RFC 9113, 3.4). At file scope: a generic class
/// has no static stored properties, and the bytes are the same for every output.
private let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

/// Chooses HTTP/2 or HTTP/1.1 for a TLS connection, as a service that speaks HTTP/2
/// to anyone who starts it must: by ALPN when the client offered a protocol, else by
/// the first bytes it sends. The HTTP/2 connection preface means HTTP/2 ("prior
/// knowledge", which APNs accepts); anything else is taken for HTTP/1.1.
///
/// `configure` sets up the pipeline after this handler for the choice; until its
/// future completes the bytes read are held, then passed on and the handler leaves.
final class HTTPVersionChooser<Output: Sendable>: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    enum Version: Sendable {
        case http1
        case http2
    }

    private let configure: (Version, any Channel) -> EventLoopFuture<Output>
    private let chosen: EventLoopPromise<Output>
    private var held: ByteBuffer?
    private var choosing = false

    /// - Parameter chosen: completed with what `configure` made, or failed when the
    ///   connection closed before a choice.
    init(chosen: EventLoopPromise<Output>, configure: @escaping (Version, any Channel) -> EventLoopFuture<Output>) {
        self.chosen = chosen
        self.configure = configure
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // The server shuts down, or the client left, before the client said anything.
        if event is ChannelShouldQuiesceEvent || event as? ChannelEvent == .inputClosed, !choosing {
            context.close(promise: nil)
        }
        if case .handshakeCompleted(let negotiated)? = event as? TLSUserEvent, !choosing {
            switch negotiated {
            case "h2": choose(.http2, context: context)
            case "http/1.1": choose(.http1, context: context)
            default: break  // no ALPN: the first bytes tell
            }
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        if held == nil {
            held = bytes
        } else {
            held?.writeBuffer(&bytes)
        }
        guard !choosing, let held else { return }
        let seen = held.readableBytesView.prefix(preface.count)
        if !seen.elementsEqual(preface.prefix(seen.count)) {
            choose(.http1, context: context)
        } else if seen.count == preface.count {
            choose(.http2, context: context)
        }  // else a prefix of the preface so far: wait for more
    }

    func channelInactive(context: ChannelHandlerContext) {
        chosen.fail(ChannelError.eof)  // no effect once chosen
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        chosen.fail(ChannelError.eof)
    }

    private func choose(_ version: Version, context: ChannelHandlerContext) {
        choosing = true
        configure(version, context.channel).hop(to: context.eventLoop).assumeIsolated().whenComplete { result in
            switch result {
            case .success(let output):
                self.chosen.succeed(output)
                if let held = self.held {
                    self.held = nil
                    context.fireChannelRead(self.wrapInboundOut(held))
                }
                context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
            case .failure(let error):
                self.chosen.fail(error)
                context.close(promise: nil)
            }
        }
    }
}
