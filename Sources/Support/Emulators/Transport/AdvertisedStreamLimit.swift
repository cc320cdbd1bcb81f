import NIOCore

/// Sets `SETTINGS_MAX_CONCURRENT_STREAMS` in the connection's first SETTINGS frame
/// (the server's preface) to `advertised`, then leaves the pipeline.
///
/// Why: NIOHTTP2 enforces the limit it advertises as a connection error, so a client
/// opening one stream too many would get GOAWAY (PROTOCOL_ERROR) for the whole
/// connection. RFC 9113 §5.1.2 lets a server refuse only the stream over the limit
/// (RST_STREAM REFUSED_STREAM), which is what a client can recover from, and what
/// ``GoAwayHandler`` does. So NIOHTTP2 is given a limit well above the advertised one,
/// the client is told the advertised one, and the streams between the two are
/// refused one by one. Placed between TLS and the HTTP/2 handler, it sees the
/// handler's bytes.
final class AdvertisedStreamLimit: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let advertised: UInt32

    init(advertised: Int) {
        self.advertised = UInt32(clamping: advertised)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        var bytes = unwrapOutboundIn(data)
        let rewritten = Self.rewriteFirstSettings(in: &bytes, maxConcurrentStreams: advertised)
        context.write(wrapOutboundOut(bytes), promise: promise)
        if rewritten { context.pipeline.syncOperations.removeHandler(context: context, promise: nil) }
    }

    private static let settingsFrame: UInt8 = 0x4
    private static let ackFlag: UInt8 = 0x1
    private static let maxConcurrentStreamsSetting: UInt16 = 0x3

    /// Walks the frames in `bytes` and, in the first SETTINGS frame that is not an
    /// ACK, sets every `SETTINGS_MAX_CONCURRENT_STREAMS` entry to the given value;
    /// `true` once such a frame was seen (rewritten or not: it has no such entry).
    static func rewriteFirstSettings(in bytes: inout ByteBuffer, maxConcurrentStreams: UInt32) -> Bool {
        var offset = bytes.readerIndex
        while let length = bytes.getInteger(at: offset, as: UInt32.self).map({ Int($0 >> 8) }),
            let type = bytes.getInteger(at: offset + 3, as: UInt8.self),
            let flags = bytes.getInteger(at: offset + 4, as: UInt8.self)
        {
            let payload = offset + 9
            guard payload + length <= bytes.writerIndex else { return false }
            if type == settingsFrame, flags & ackFlag == 0 {
                var entry = payload
                while entry + 6 <= payload + length {
                    if bytes.getInteger(at: entry, as: UInt16.self) == maxConcurrentStreamsSetting {
                        bytes.setInteger(maxConcurrentStreams, at: entry + 2)
                    }
                    entry += 6
                }
                return true
            }
            offset = payload + length
        }
        return false
    }
}
