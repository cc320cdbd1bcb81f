/// Lines cut out of a byte stream as it comes, each byte looked at once, none longer
/// than `limit`: what `pushgate mcp` reads its messages with (one JSON-RPC message a line).
public struct LineSplitter: Sendable {
    public enum Line: Sendable, Equatable {
        case message([UInt8])
        /// A line over the limit, skipped to its end.
        case overlong
    }

    public let limit: Int
    private var pending: [UInt8] = []
    /// The current line went over the limit: skipped until its end.
    private var skipping = false

    public init(limit: Int) {
        self.limit = limit
    }

    /// The lines that end in `bytes`; the rest waits for the next.
    public mutating func lines(in bytes: ArraySlice<UInt8>) -> [Line] {
        var found: [Line] = []
        var start = bytes.startIndex
        while let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) {
            let piece = bytes[start..<newline]
            if skipping || pending.count + piece.count > limit {
                found.append(.overlong)
            } else {
                pending += piece
                if pending.last == UInt8(ascii: "\r") { pending.removeLast() }
                if !pending.isEmpty { found.append(.message(pending)) }
            }
            pending.removeAll(keepingCapacity: true)
            skipping = false
            start = bytes.index(after: newline)
        }
        let rest = bytes[start...]
        if !skipping {
            if pending.count + rest.count > limit {
                // Dropped now, refused at its end: it never holds more than the limit.
                skipping = true
                pending.removeAll()
            } else {
                pending += rest
            }
        }
        return found
    }
}
