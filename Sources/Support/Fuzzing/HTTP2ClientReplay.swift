import NIOCore
import NIOEmbedded
import PushgateHTTP2

/// A server's bytes played to a client connection without a network, for the
/// fuzzer (`Fuzz/`, target FuzzFrames): what the framing must survive is whatever a
/// server, or whoever stands in its place, sends. Here, not in PushgateHTTP2: no
/// production target links NIOEmbedded (the client's parts it drives are `package`).
enum HTTP2ClientReplay {
    /// Opens a connection on an embedded channel, sends `requests` requests, reads
    /// `serverBytes` cut into reads at `cuts`, then closes it: the answers, one per
    /// request, or `nil` if some request went unanswered.
    static func answers(requests: Int, serverBytes: [UInt8], cuts: [Int]) -> [HTTP2Response]? {
        let channel = EmbeddedChannel()
        let handler = HTTP2ConnectionHandler(requestTimeout: .seconds(10), streamLimit: 8, onRetire: {})
        guard (try? channel.pipeline.syncOperations.addHandler(handler)) != nil,
            (try? channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 443)).wait()) != nil
        else { return nil }
        let batch = HTTP2Batch(count: requests, promise: channel.eventLoop.makePromise())
        let request = HTTP2Request(
            headers: HTTP2HeaderBlock([(":method", "POST"), (":path", "/")]), body: ByteBuffer(string: "{}"))
        handler.enqueue(Array(repeating: request, count: requests), batch: batch)
        var start = 0
        for end in (cuts.filter { $0 > 0 && $0 < serverBytes.count }.sorted() + [serverBytes.count]) where end > start {
            guard channel.isActive else { break }
            _ = try? channel.writeInbound(ByteBuffer(bytes: serverBytes[start..<end]))
            channel.pipeline.fireChannelReadComplete()
            start = end
        }
        _ = try? channel.close().wait()
        var answers: [HTTP2Response]?
        batch.futureResult.whenSuccess { answers = $0 }
        // Drops the deadline sweep still scheduled on the loop, and the loop with it.
        try? channel.embeddedEventLoop.syncShutdownGracefully()
        return answers
    }

    /// Whether the frame reader finds the same frames (or the same violation) in
    /// `bytes` read whole and read in two parts cut at `cut`.
    static func framesAgree(_ bytes: [UInt8], cut: Int) -> Bool {
        let cut = min(max(cut, 0), bytes.count)
        let whole = frames([bytes[...]])
        let parts = frames([bytes[..<cut], bytes[cut...]])
        return whole.frames == parts.frames && whole.violation == parts.violation
    }

    private static func frames(_ parts: [ArraySlice<UInt8>]) -> (
        frames: [HTTP2FrameReader.Frame], violation: HTTP2ProtocolViolation?
    ) {
        var reader = HTTP2FrameReader()
        var frames: [HTTP2FrameReader.Frame] = []
        do {
            for part in parts {
                reader.append(ByteBuffer(bytes: part))
                while let frame = try reader.next() { frames.append(frame) }
            }
        } catch {
            return (frames, error)
        }
        return (frames, nil)
    }
}
