/// The frame types, flags, settings and limits of RFC 9113 that a push client uses.
package struct HTTP2FrameType: RawRepresentable, Hashable, Sendable {
    package let rawValue: UInt8

    package init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    static let data = Self(rawValue: 0x0)
    static let headers = Self(rawValue: 0x1)
    static let resetStream = Self(rawValue: 0x3)
    static let settings = Self(rawValue: 0x4)
    static let pushPromise = Self(rawValue: 0x5)
    static let ping = Self(rawValue: 0x6)
    static let goAway = Self(rawValue: 0x7)
    static let windowUpdate = Self(rawValue: 0x8)
    static let continuation = Self(rawValue: 0x9)

    // Flags.
    static let endStream: UInt8 = 0x1
    static let ack: UInt8 = 0x1
    static let endHeaders: UInt8 = 0x4
    static let padded: UInt8 = 0x8
    static let priorityFlag: UInt8 = 0x20

    /// Every window starts at this size (§6.9.2).
    static let defaultWindow = 65_535
    /// No window may grow past 2³¹ − 1 (§6.9.1).
    static let maxWindow = 0x7fff_ffff
    /// The largest frame payload either side must take without saying otherwise (§4.2).
    static let defaultMaxFrameSize = 16_384
    /// The highest stream id (§5.1.1).
    static let maxStreamID: UInt32 = 0x7fff_ffff

    /// SETTINGS parameters (§6.5.2).
    package struct Setting: RawRepresentable, Hashable, Sendable {
        package let rawValue: UInt16

        package init(rawValue: UInt16) {
            self.rawValue = rawValue
        }

        static let headerTableSize = Self(rawValue: 0x1)
        static let enablePush = Self(rawValue: 0x2)
        static let maxConcurrentStreams = Self(rawValue: 0x3)
        static let initialWindowSize = Self(rawValue: 0x4)
        static let maxFrameSize = Self(rawValue: 0x5)
        static let maxHeaderListSize = Self(rawValue: 0x6)
    }
}

/// The error codes of RST_STREAM and GOAWAY (RFC 9113 §7).
package struct HTTP2ErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    package let rawValue: UInt32

    package init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    static let noError = Self(rawValue: 0x0)
    static let protocolError = Self(rawValue: 0x1)
    static let flowControlError = Self(rawValue: 0x3)
    static let frameSizeError = Self(rawValue: 0x6)
    static let cancel = Self(rawValue: 0x8)
    static let compressionError = Self(rawValue: 0x9)
    static let enhanceYourCalm = Self(rawValue: 0xB)

    private static let names = [
        "NO_ERROR", "PROTOCOL_ERROR", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR", "SETTINGS_TIMEOUT", "STREAM_CLOSED",
        "FRAME_SIZE_ERROR", "REFUSED_STREAM", "CANCEL", "COMPRESSION_ERROR", "CONNECT_ERROR", "ENHANCE_YOUR_CALM",
        "INADEQUATE_SECURITY", "HTTP_1_1_REQUIRED",
    ]

    package var description: String {
        rawValue < Self.names.count ? Self.names[Int(rawValue)] : "error 0x" + String(rawValue, radix: 16)
    }
}

/// A violation of the protocol by the server: the connection ends with GOAWAY and
/// this code.
package struct HTTP2ProtocolViolation: Error, Hashable, CustomStringConvertible {
    let code: HTTP2ErrorCode
    let message: String

    package var description: String { "\(code): \(message)" }
}
