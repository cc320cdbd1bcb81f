import NIOCore

/// How many frames that call for an answer (PING, SETTINGS) a server may send. Each
/// one makes this side write; a server that floods them and never reads would have
/// the answers pile up without end (RFC 9113 §10.5: such activity may be treated as a
/// connection error of type ENHANCE_YOUR_CALM). A legitimate server sends a handful
/// a minute.
struct HTTP2ControlFrameBudget {
    /// Frames allowed within any one second of the loop's clock.
    static let perSecond = 1_000
    /// Answers written while the connection cannot write, at most: what NIOHTTP2's
    /// servers allow (`maximumBufferedControlFrames`).
    static let maxHeldAnswers = 10_000

    private var secondStartedAt: NIODeadline?
    private var inSecond = 0
    /// Answers written since the connection last became writable.
    private(set) var heldAnswers = 0

    /// Counts a frame that calls for an answer, received at `now`, its answer held
    /// when the connection is not `writable`; `false` once the server floods.
    mutating func received(at now: NIODeadline, writable: Bool) -> Bool {
        if let start = secondStartedAt, now - start < .seconds(1) {
            inSecond += 1
        } else {
            secondStartedAt = now
            inSecond = 1
        }
        if !writable { heldAnswers += 1 }
        return inSecond <= Self.perSecond && heldAnswers <= Self.maxHeldAnswers
    }

    /// The connection can write again: what was held is on its way.
    mutating func drained() {
        heldAnswers = 0
    }
}
