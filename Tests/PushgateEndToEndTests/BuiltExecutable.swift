import Foundation
import Synchronization

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

    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    /// Runs the executable to completion.
    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> Result {
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
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
    private let process: Process
    private let log = LogBuffer()
    let port: Int

    var baseURL: String { "http://127.0.0.1:\(port)" }
    var capturedLog: String { log.text }

    init(database: String, extraArguments: [String] = []) throws {
        process = Process()
        process.executableURL = BuiltExecutable.url
        process.arguments = ["serve", "--port", "0", "--database", database] + extraArguments
        let err = Pipe()
        process.standardError = err
        process.standardOutput = err
        let log = self.log
        err.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            log.append(String(decoding: data, as: UTF8.self))
        }
        try process.run()
        // Hummingbird logs the bound address; with --port 0 that is how we learn it.
        let deadline = Date().addingTimeInterval(30)
        var found: Int?
        while found == nil, Date() < deadline, process.isRunning {
            found = Self.port(in: log.text)
            if found == nil { Thread.sleep(forTimeInterval: 0.05) }
        }
        guard let found else {
            process.terminate()
            throw GatewayDidNotStart(log: log.text)
        }
        port = found
    }

    private static func port(in log: String) -> Int? {
        guard let range = log.range(of: "listening on 127.0.0.1:") else { return nil }
        return Int(log[range.upperBound...].prefix(while: \.isNumber))
    }

    /// Sends SIGTERM to the gateway's own pid and waits for it to exit.
    func stop() -> Int32 {
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        return process.terminationStatus
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
        }
    }
}

struct GatewayDidNotStart: Error, CustomStringConvertible {
    let log: String
    var description: String { "the gateway did not start:\n\(log)" }
}

/// Text appended from a pipe's handler thread and read from the test's.
final class LogBuffer: Sendable {
    private let storage = Mutex("")

    func append(_ text: String) { storage.withLock { $0 += text } }
    var text: String { storage.withLock { $0 } }
}
