import NIOCore

/// Writes the HTTP/2 frames a push client sends (RFC 9113 §6) into one buffer, so
/// that every frame a read or a batch lets out leaves in one write, one TLS record
/// per 16 KiB rather than one per frame.
struct HTTP2FrameWriter {
    /// What the client says first: the preface, its SETTINGS (no HPACK table for the
    /// server's encoder, see ``HTTP2ResponseHeaders``; no server push; a large stream
    /// window; a bound on answers' headers) and a connection window raised to
    /// `receiveWindow` (the initial 64 KiB would hold answers up).
    static func writePreface(receiveWindow: Int, maxHeaderListSize: Int, to buffer: inout ByteBuffer) {
        buffer.writeString("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
        let settings: [(HTTP2FrameType.Setting, Int)] = [
            (.headerTableSize, 0), (.enablePush, 0), (.initialWindowSize, receiveWindow),
            (.maxHeaderListSize, maxHeaderListSize),
        ]
        writeHeader(length: settings.count * 6, type: .settings, flags: 0, stream: 0, to: &buffer)
        for (setting, value) in settings {
            buffer.writeInteger(setting.rawValue)
            buffer.writeInteger(UInt32(clamping: value))
        }
        if receiveWindow > HTTP2FrameType.defaultWindow {
            writeWindowUpdate(stream: 0, increment: receiveWindow - HTTP2FrameType.defaultWindow, to: &buffer)
        }
    }

    /// A request: HEADERS (and CONTINUATION when the block is larger than a frame),
    /// then the body in DATA frames, the last ending the stream.
    static func writeRequest(
        stream: UInt32, headers: ByteBuffer, body: ByteBuffer, maxFrameSize: Int, to buffer: inout ByteBuffer
    ) {
        var block = headers
        var type = HTTP2FrameType.headers
        repeat {
            var fragment = block.readSlice(length: min(block.readableBytes, maxFrameSize)) ?? ByteBuffer()
            let last = block.readableBytes == 0
            writeHeader(
                length: fragment.readableBytes, type: type, flags: last ? HTTP2FrameType.endHeaders : 0,
                stream: stream, to: &buffer)
            buffer.writeBuffer(&fragment)
            type = .continuation
        } while block.readableBytes > 0
        var body = body
        repeat {
            var fragment = body.readSlice(length: min(body.readableBytes, maxFrameSize)) ?? ByteBuffer()
            let last = body.readableBytes == 0
            writeHeader(
                length: fragment.readableBytes, type: .data, flags: last ? HTTP2FrameType.endStream : 0,
                stream: stream, to: &buffer)
            buffer.writeBuffer(&fragment)
        } while body.readableBytes > 0
    }

    static func writeSettingsAck(to buffer: inout ByteBuffer) {
        writeHeader(length: 0, type: .settings, flags: HTTP2FrameType.ack, stream: 0, to: &buffer)
    }

    static func writePing(_ data: UInt64, ack: Bool, to buffer: inout ByteBuffer) {
        writeHeader(length: 8, type: .ping, flags: ack ? HTTP2FrameType.ack : 0, stream: 0, to: &buffer)
        buffer.writeInteger(data)
    }

    static func writeWindowUpdate(stream: UInt32, increment: Int, to buffer: inout ByteBuffer) {
        writeHeader(length: 4, type: .windowUpdate, flags: 0, stream: stream, to: &buffer)
        buffer.writeInteger(UInt32(clamping: min(increment, HTTP2FrameType.maxWindow)))
    }

    static func writeResetStream(_ stream: UInt32, code: HTTP2ErrorCode, to buffer: inout ByteBuffer) {
        writeHeader(length: 4, type: .resetStream, flags: 0, stream: stream, to: &buffer)
        buffer.writeInteger(code.rawValue)
    }

    static func writeGoAway(lastStream: UInt32, code: HTTP2ErrorCode, to buffer: inout ByteBuffer) {
        writeHeader(length: 8, type: .goAway, flags: 0, stream: 0, to: &buffer)
        buffer.writeInteger(lastStream)
        buffer.writeInteger(code.rawValue)
    }

    /// The nine bytes every frame starts with.
    static func writeHeader(
        length: Int, type: HTTP2FrameType, flags: UInt8, stream: UInt32, to buffer: inout ByteBuffer
    ) {
        buffer.writeInteger(UInt8(truncatingIfNeeded: length >> 16))
        buffer.writeInteger(UInt16(truncatingIfNeeded: length))
        buffer.writeInteger(type.rawValue)
        buffer.writeInteger(flags)
        buffer.writeInteger(stream & 0x7fff_ffff)
    }
}
