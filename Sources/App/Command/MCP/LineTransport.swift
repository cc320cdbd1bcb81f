import Foundation
import Logging
import MCP
import PushgateAgentSide

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// MCP's stdio transport (one JSON-RPC message a line), read in linear time: the
/// swift-sdk's own scans the whole pending buffer for a newline after every 4 KiB read,
/// so one long line costs quadratic time (4 MiB: 21 s of CPU, deaf meanwhile). Here
/// each byte is looked at once, a line is at most ``maxLineBytes`` — a longer one is
/// skipped to its end and answered with a JSON-RPC error (its id unread: `null`) — and
/// the server goes on with the next.
actor LineTransport: Transport {
    /// The longest line read.
    static let maxLineBytes = 1 << 20

    nonisolated let logger: Logger
    private let input: Int32
    private let output: Int32
    private let lines: AsyncThrowingStream<Data, any Swift.Error>
    private let continuation: AsyncThrowingStream<Data, any Swift.Error>.Continuation
    private var reading = false

    init(input: Int32 = 0, output: Int32 = 1) {
        self.input = input
        self.output = output
        logger = Logger(label: "pushgate.mcp.transport", factory: { _ in SwiftLogNoOpLogHandler() })
        (lines, continuation) = AsyncThrowingStream.makeStream()
    }

    func connect() async throws {
        guard !reading else { return }
        reading = true
        let (input, continuation) = (self.input, self.continuation)
        // Blocking reads on a thread of their own: no thread of the tasks' pool waits on them.
        Thread.detachNewThread {
            var splitter = LineSplitter(limit: Self.maxLineBytes)
            var chunk = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                for line in splitter.lines(in: chunk[..<count]) {
                    switch line {
                    case .message(let bytes): continuation.yield(Data(bytes))
                    case .overlong:
                        Task { await self.refuseOverlongLine() }
                    }
                }
            }
            continuation.finish()
        }
    }

    func disconnect() async {
        continuation.finish()
    }

    func send(_ data: Data) async throws {
        var bytes = [UInt8](data)
        bytes.append(UInt8(ascii: "\n"))
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(output, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw MCPError.connectionClosed }
            written += count
        }
    }

    func receive() -> AsyncThrowingStream<Data, any Swift.Error> {
        lines
    }

    /// The JSON-RPC error a line over the limit gets: its request is not read.
    private func refuseOverlongLine() async {
        let error =
            #"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"a message over 1 MiB: not read"}}"#
        try? await send(Data(error.utf8))
    }
}
