import NIOCore

/// Cuts the bytes a server sends into the frames a push client acts on (RFC 9113
/// §4, §6), checking each against the protocol: a frame larger than allowed, a
/// length that does not fit its type, padding longer than the frame, a header block
/// interrupted or grown past its bound, server push (which the client turned off):
/// each is an ``HTTP2ProtocolViolation`` that ends the connection. A header block
/// split over CONTINUATION frames comes out whole. PRIORITY frames and unknown types
/// are skipped, as the protocol says.
///
/// Payloads are slices of the bytes read, not copies.
package struct HTTP2FrameReader {
    package enum Frame: Hashable {
        /// A DATA frame: its payload without padding, and how much of the
        /// connection's receive window it used (padding included).
        case data(stream: UInt32, payload: ByteBuffer, endStream: Bool, windowUsed: Int)
        /// A whole header block, still HPACK-encoded.
        case headers(stream: UInt32, block: ByteBuffer, endStream: Bool)
        case resetStream(stream: UInt32, code: HTTP2ErrorCode)
        case settings([Setting])
        case settingsAck
        case ping(UInt64, ack: Bool)
        case goAway(lastStream: UInt32, code: HTTP2ErrorCode, debugData: ByteBuffer)
        case windowUpdate(stream: UInt32, increment: Int)
    }

    package struct Setting: Hashable {
        let parameter: HTTP2FrameType.Setting
        let value: UInt32
    }

    /// The largest frame payload taken: what this side's SETTINGS allow.
    let maxFrameSize: Int
    /// The largest header block taken, CONTINUATION frames included.
    let maxHeaderBlockSize: Int

    private var buffered = ByteBuffer()
    /// A header block whose END_HEADERS has not come yet.
    private var continuing: (stream: UInt32, block: ByteBuffer, endStream: Bool)?

    package init(maxFrameSize: Int = HTTP2FrameType.defaultMaxFrameSize, maxHeaderBlockSize: Int = 64 * 1024) {
        self.maxFrameSize = maxFrameSize
        self.maxHeaderBlockSize = maxHeaderBlockSize
    }

    /// Bytes read from the connection.
    package mutating func append(_ bytes: ByteBuffer) {
        if buffered.readableBytes == 0 {
            buffered = bytes
        } else {
            var bytes = bytes
            buffered.discardReadBytes()
            buffered.writeBuffer(&bytes)
        }
    }

    /// Lets go of the bytes read, keeping a copy of what is not a whole frame yet: the
    /// TLS handler reuses its buffer for the next read, and a buffer still referenced
    /// here would be copied whole first (it was 4.5 % of the gateway's CPU in an FCM
    /// fan-out).
    mutating func releaseReadBuffer() {
        buffered = buffered.readableBytes == 0 ? ByteBuffer() : ByteBuffer(bytes: buffered.readableBytesView)
        if let block = continuing?.block {
            continuing?.block = ByteBuffer(bytes: block.readableBytesView)
        }
    }

    /// The next whole frame, or `nil` until more bytes are read.
    package mutating func next() throws(HTTP2ProtocolViolation) -> Frame? {
        while true {
            let start = buffered.readerIndex
            guard buffered.readableBytes >= 9, let lengthAndType = buffered.getInteger(at: start, as: UInt32.self),
                let flags = buffered.getInteger(at: start + 4, as: UInt8.self),
                let rawStream = buffered.getInteger(at: start + 5, as: UInt32.self)
            else { return nil }
            let length = Int(lengthAndType >> 8)
            guard length <= maxFrameSize else {
                throw violation(.frameSizeError, "a frame of \(length) bytes, above the \(maxFrameSize) allowed")
            }
            guard buffered.readableBytes >= 9 + length else { return nil }
            let type = HTTP2FrameType(rawValue: UInt8(truncatingIfNeeded: lengthAndType))
            let stream = rawStream & HTTP2FrameType.maxStreamID
            buffered.moveReaderIndex(forwardBy: 9)
            let payload = buffered.readSlice(length: length) ?? ByteBuffer()
            if let frame = try frame(type: type, flags: flags, stream: stream, payload: payload) { return frame }
        }
    }

    private mutating func frame(type: HTTP2FrameType, flags: UInt8, stream: UInt32, payload: ByteBuffer)
        throws(HTTP2ProtocolViolation) -> Frame?
    {
        if let open = continuing, type != .continuation || stream != open.stream {
            throw violation(.protocolError, "a header block on stream \(open.stream) was interrupted")
        }
        var payload = payload
        switch type {
        case .data:
            guard stream != 0 else { throw violation(.protocolError, "DATA on stream 0") }
            let windowUsed = payload.readableBytes
            try removePadding(from: &payload, flags: flags)
            return .data(
                stream: stream, payload: payload, endStream: flags & HTTP2FrameType.endStream != 0,
                windowUsed: windowUsed)
        case .headers:
            guard stream != 0 else { throw violation(.protocolError, "HEADERS on stream 0") }
            try removePadding(from: &payload, flags: flags)
            if flags & HTTP2FrameType.priorityFlag != 0 {
                guard payload.readableBytes >= 5 else { throw violation(.frameSizeError, "HEADERS too short") }
                payload.moveReaderIndex(forwardBy: 5)
            }
            return try headerBlock(
                stream: stream, payload, endStream: flags & HTTP2FrameType.endStream != 0,
                endHeaders: flags & HTTP2FrameType.endHeaders != 0)
        case .continuation:
            guard var open = continuing else { throw violation(.protocolError, "CONTINUATION without HEADERS") }
            continuing = nil
            guard open.block.readableBytes + payload.readableBytes <= maxHeaderBlockSize else {
                throw violation(.protocolError, "a header block above \(maxHeaderBlockSize) bytes")
            }
            open.block.writeBuffer(&payload)
            return try headerBlock(
                stream: stream, open.block, endStream: open.endStream,
                endHeaders: flags & HTTP2FrameType.endHeaders != 0)
        case .resetStream:
            guard stream != 0 else { throw violation(.protocolError, "RST_STREAM on stream 0") }
            guard let code = payload.readInteger(as: UInt32.self), payload.readableBytes == 0 else {
                throw violation(.frameSizeError, "RST_STREAM of the wrong length")
            }
            return .resetStream(stream: stream, code: HTTP2ErrorCode(rawValue: code))
        case .settings:
            return try settings(stream: stream, flags: flags, payload)
        case .pushPromise:
            throw violation(.protocolError, "PUSH_PROMISE, with push disabled")
        case .ping:
            guard stream == 0 else { throw violation(.protocolError, "PING on a stream") }
            guard let data = payload.readInteger(as: UInt64.self), payload.readableBytes == 0 else {
                throw violation(.frameSizeError, "PING of the wrong length")
            }
            return .ping(data, ack: flags & HTTP2FrameType.ack != 0)
        case .goAway:
            guard stream == 0 else { throw violation(.protocolError, "GOAWAY on a stream") }
            guard let lastStream = payload.readInteger(as: UInt32.self), let code = payload.readInteger(as: UInt32.self)
            else { throw violation(.frameSizeError, "GOAWAY too short") }
            return .goAway(
                lastStream: lastStream & HTTP2FrameType.maxStreamID, code: HTTP2ErrorCode(rawValue: code),
                debugData: payload)
        case .windowUpdate:
            guard let raw = payload.readInteger(as: UInt32.self), payload.readableBytes == 0 else {
                throw violation(.frameSizeError, "WINDOW_UPDATE of the wrong length")
            }
            let increment = Int(raw & 0x7fff_ffff)
            guard increment > 0 || stream != 0 else { throw violation(.protocolError, "a window increment of 0") }
            return .windowUpdate(stream: stream, increment: increment)
        default:
            return nil  // PRIORITY, and types this side does not know
        }
    }

    private mutating func headerBlock(stream: UInt32, _ block: ByteBuffer, endStream: Bool, endHeaders: Bool)
        throws(HTTP2ProtocolViolation) -> Frame?
    {
        guard block.readableBytes <= maxHeaderBlockSize else {
            throw violation(.protocolError, "a header block above \(maxHeaderBlockSize) bytes")
        }
        guard endHeaders else {
            continuing = (stream, block, endStream)
            return nil
        }
        return .headers(stream: stream, block: block, endStream: endStream)
    }

    private func settings(stream: UInt32, flags: UInt8, _ payload: ByteBuffer) throws(HTTP2ProtocolViolation)
        -> Frame
    {
        guard stream == 0 else { throw violation(.protocolError, "SETTINGS on a stream") }
        if flags & HTTP2FrameType.ack != 0 {
            guard payload.readableBytes == 0 else { throw violation(.frameSizeError, "a SETTINGS ack with a payload") }
            return .settingsAck
        }
        guard payload.readableBytes % 6 == 0 else { throw violation(.frameSizeError, "SETTINGS of the wrong length") }
        var payload = payload
        var settings: [Setting] = []
        while let parameter = payload.readInteger(as: UInt16.self), let value = payload.readInteger(as: UInt32.self) {
            let setting = Setting(parameter: HTTP2FrameType.Setting(rawValue: parameter), value: value)
            switch setting.parameter {
            case .initialWindowSize where Int(value) > HTTP2FrameType.maxWindow:
                throw violation(.flowControlError, "an initial window of \(value)")
            case .maxFrameSize where !(HTTP2FrameType.defaultMaxFrameSize...0xff_ffff).contains(Int(value)):
                throw violation(.protocolError, "a maximum frame size of \(value)")
            case .enablePush where value > 1:
                throw violation(.protocolError, "ENABLE_PUSH of \(value)")
            default:
                settings.append(setting)
            }
        }
        return .settings(settings)
    }

    /// Strips a PADDED frame's pad length and padding.
    private func removePadding(from payload: inout ByteBuffer, flags: UInt8) throws(HTTP2ProtocolViolation) {
        guard flags & HTTP2FrameType.padded != 0 else { return }
        guard let padding = payload.readInteger(as: UInt8.self), Int(padding) <= payload.readableBytes else {
            throw violation(.protocolError, "padding longer than its frame")
        }
        payload = payload.getSlice(at: payload.readerIndex, length: payload.readableBytes - Int(padding)) ?? payload
    }

    private func violation(_ code: HTTP2ErrorCode, _ message: String) -> HTTP2ProtocolViolation {
        HTTP2ProtocolViolation(code: code, message: message)
    }
}
