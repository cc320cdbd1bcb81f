import NIOCore
import NIOHPACK
import NIOHTTP2

/// Serves one HTTP/2 stream: collects the request (headers, then the body up to
/// `maxBodyBytes`), asks `respond`, and writes the answer frame by frame. An answer
/// without a body is one HEADERS frame that ends the stream, as APNs ends a 200; a
/// general-purpose codec would add an empty DATA frame, which some clients read as a
/// body to parse. The answer's ``EmulatorAnswer/written`` hears whether its last
/// frame was written.
final class HTTP2RequestHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    private let maxBodyBytes: Int
    private let respond: @Sendable (EmulatorRequest) async -> EmulatorAnswer
    private var request: EmulatorRequest?
    private var answered = false

    init(maxBodyBytes: Int, respond: @escaping @Sendable (EmulatorRequest) async -> EmulatorAnswer) {
        self.maxBodyBytes = maxBodyBytes
        self.respond = respond
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .headers(let frame):
            if request == nil {
                request = Self.request(frame.headers)
            }  // else trailers, which no push service reads
            if frame.endStream { answer(context: context) }
        case .data(let frame):
            if case .byteBuffer(let bytes) = frame.data {
                request?.append(bytes.readableBytesView, upTo: maxBodyBytes)
            }
            if frame.endStream { answer(context: context) }
        default:
            break
        }
    }

    /// The request of a HEADERS block (NIOHTTP2 has checked it is well formed).
    private static func request(_ headers: HPACKHeaders) -> EmulatorRequest {
        var request = EmulatorRequest(method: "", path: "", authority: nil, headers: [])
        for (name, value, _) in headers {
            switch name {
            case ":method": request.method = value
            case ":path": request.path = value
            case ":authority": request.authority = value
            case _ where name.hasPrefix(":"): break
            default: request.headers.append((name, value))
            }
        }
        return request
    }

    private func answer(context: ChannelHandlerContext) {
        guard !answered, let request else { return }
        answered = true
        let respond = self.respond
        let promise = context.eventLoop.makePromise(of: EmulatorAnswer.self)
        promise.completeWithTask { await respond(request) }
        promise.futureResult.assumeIsolated().whenSuccess { answer in
            self.write(answer, context: context)
        }
    }

    private func write(_ answer: EmulatorAnswer, context: ChannelHandlerContext) {
        var headers = HPACKHeaders([(":status", String(answer.status))])
        for (name, value) in answer.headers {
            headers.add(name: name, value: value)
        }
        let written = answer.written.map { told in
            let promise = context.eventLoop.makePromise(of: Void.self)
            promise.futureResult.whenComplete { result in
                if case .success = result { told(true) } else { told(false) }
            }
            return promise
        }
        guard !answer.body.isEmpty else {
            context.writeAndFlush(wrapOutboundOut(.headers(.init(headers: headers, endStream: true))), promise: written)
            return
        }
        context.write(wrapOutboundOut(.headers(.init(headers: headers))), promise: nil)
        let body = context.channel.allocator.buffer(bytes: answer.body)
        context.writeAndFlush(
            wrapOutboundOut(.data(.init(data: .byteBuffer(body), endStream: true))), promise: written)
    }
}
