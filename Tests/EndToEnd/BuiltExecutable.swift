import Foundation
import Testing

/// The `pushgate` executable that `swift build` put beside this test bundle (or
/// `PUSHGATE_BINARY`), run as a real process.
enum BuiltExecutable {
    static var url: URL {
        if let path = ProcessInfo.processInfo.environment["PUSHGATE_BINARY"] {
            return URL(fileURLWithPath: path)
        }
        return URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("pushgate")
    }

    struct Result: Sendable {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    /// This process's environment with `environment` over it. A gateway started by a
    /// test serves `/metrics` on its main port unless the test says otherwise: tests
    /// run side by side, and the default loopback port 9464 is one for all of them.
    static func environment(for arguments: [String], adding environment: [String: String]) -> [String: String] {
        var merged = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        if arguments.first == "serve", merged["PUSHGATE_METRICS_LISTEN"] == nil {
            merged["PUSHGATE_METRICS_LISTEN"] = "main"
        }
        return merged
    }

    /// Runs the executable (or another program, by its path) to completion, waiting
    /// for it on a thread of its own: the tests' tasks share a few threads (two on two
    /// cores), and a test that blocked one while a command ran stalled the others.
    /// `input` is written to its standard input, which is then closed, unless
    /// `input` is `.leftOpen` (a caller that never finishes writing).
    static func run(
        _ arguments: [String], environment: [String: String] = [:], program: URL = url, input: Input = .none
    ) async throws -> Result {
        try await BlockingWork.run { try runBlocking(arguments, environment, program, input) }
    }

    enum Input: Sendable {
        /// This process's standard input, as it is.
        case none
        case bytes(Data)
        /// A pipe nothing is written to and that stays open until the process exits.
        case leftOpen
    }

    private static func runBlocking(
        _ arguments: [String], _ environment: [String: String], _ program: URL, _ input: Input
    ) throws -> Result {
        let process = Process()
        process.executableURL = program
        process.arguments = arguments
        process.environment = Self.environment(for: arguments, adding: environment)
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let stdin = Pipe()
        if case .none = input {} else { process.standardInput = stdin }
        try process.run()
        switch input {
        case .none, .leftOpen: break
        case .bytes(let data):
            stdin.fileHandleForWriting.write(data)
            try stdin.fileHandleForWriting.close()
        }
        // Held open past the process's end when left open: closed by `stdin` going away.
        defer { withExtendedLifetime(stdin) {} }
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus,
            stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self)
        )
    }
}

/// `pushgate serve` on a free loopback port, its log captured; stopped by its own pid.
final class RunningGateway: Sendable {
    private let process: RunningProcess
    let port: Int

    var baseURL: String { "http://127.0.0.1:\(port)" }
    var capturedLog: String { process.capturedOutput }

    /// `port`: 0 for a free one; another's, to stand in for a gateway that restarted.
    init(
        database: String, environment: [String: String] = [:], arguments: [String] = [], shellSetup: String? = nil,
        privateMounts: Bool = false, port: Int = 0
    ) async throws {
        // Hummingbird logs the bound address; with --port 0 that is how we learn it.
        process = try await RunningProcess(
            ["serve", "--port", String(port), "--database", database] + arguments,
            environment: environment,
            shellSetup: shellSetup,
            privateMounts: privateMounts,
            readyWhen: "listening on 127.0.0.1:"
        )
        let log = process.capturedOutput
        let range = try #require(log.range(of: "listening on 127.0.0.1:"))
        self.port = try #require(Int(log[range.upperBound...].prefix(while: \.isNumber)))
    }

    /// How long the gateway takes to exit after SIGTERM, and its exit status; `nil`
    /// status when it still ran after `limit`.
    func timedStop(limit: TimeInterval = 30) async throws -> (status: Int32?, took: TimeInterval) {
        let start = Date()
        process.terminate()
        _ = await process.exited(within: .seconds(limit))
        return (process.exitStatus, Date().timeIntervalSince(start))
    }

    /// Sends SIGTERM to the gateway's own pid and waits for it to exit.
    func stop() async -> Int32 {
        await process.stop()
    }

    /// Sends SIGTERM to the gateway's own pid and returns at once (for `defer`).
    func terminate() {
        process.terminate()
    }

    /// Sends SIGKILL to the gateway's own pid: a crash, no chance to clean up.
    func crash() async {
        await process.crash()
    }
}
