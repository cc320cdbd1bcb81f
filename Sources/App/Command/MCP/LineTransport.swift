import Foundation
import PushgateAgentSide

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// MCP's stdio transport (one JSON-RPC message a line), read in linear time: each byte
/// is looked at once (``LineSplitter``), a line is at most ``maxLineBytes`` — a longer
/// one is skipped to its end and reported as such, for the server to answer with a
/// JSON-RPC error — and the server goes on with the next. (The swift-sdk's transport
/// scans the whole pending buffer for a newline after every 4 KiB read: one 4 MiB line
/// cost 21 s of CPU, deaf meanwhile.) Writes are whole lines, one at a time.
actor LineTransport {
    /// The longest line read.
    static let maxLineBytes = 1 << 20

    private let input: Int32
    private let output: Int32

    init(input: Int32 = 0, output: Int32 = 1) {
        self.input = input
        self.output = output
    }

    /// The lines read from standard input until it ends, on a thread of their own
    /// (blocking reads hold no thread of the tasks' pool).
    nonisolated func lines() -> AsyncStream<LineSplitter.Line> {
        let (lines, continuation) = AsyncStream.makeStream(of: LineSplitter.Line.self)
        let input = self.input
        Thread.detachNewThread {
            var splitter = LineSplitter(limit: Self.maxLineBytes)
            var chunk = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                for line in splitter.lines(in: chunk[..<count]) { continuation.yield(line) }
            }
            continuation.finish()
        }
        return lines
    }

    /// Writes `message` and its newline; `false` once standard output is gone.
    @discardableResult
    func send(_ message: [UInt8]) -> Bool {
        var bytes = message
        bytes.append(UInt8(ascii: "\n"))
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(output, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            written += count
        }
        return true
    }
}
