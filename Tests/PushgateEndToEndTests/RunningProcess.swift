import Foundation
import Synchronization

/// A long-running `pushgate` command (serve, apns-emulator) with its output captured;
/// stopped by its own pid.
final class RunningProcess: Sendable {
    private let process: Process
    private let output = LogBuffer()

    var capturedOutput: String { output.text }
    var isRunning: Bool { process.isRunning }

    /// Starts `pushgate arguments…` and waits until its output contains `readyWhen`;
    /// with `shellSetup`, after those shell commands (limits: `ulimit -n 256`).
    init(
        _ arguments: [String], environment: [String: String] = [:], shellSetup: String? = nil,
        readyWhen marker: String
    ) async throws {
        process = Process()
        if let shellSetup {
            // The shell sets up, then becomes pushgate: the pid stays the gateway's.
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "\(shellSetup) && exec \"$0\" \"$@\"", BuiltExecutable.url.path] + arguments
        } else {
            process.executableURL = BuiltExecutable.url
            process.arguments = arguments
        }
        process.environment = BuiltExecutable.environment(for: arguments, adding: environment)
        let pipe = Pipe()
        process.standardError = pipe
        process.standardOutput = pipe
        let output = self.output
        pipe.fileHandleForReading.readabilityHandler = { handle in
            output.append(String(decoding: handle.availableData, as: UTF8.self))
        }
        try process.run()
        let deadline = Date().addingTimeInterval(30)
        // Polled without holding a thread: the tests' tasks share a few threads (two
        // on two cores), and a test that blocked one stalled the others.
        while !output.text.contains(marker), Date() < deadline, process.isRunning {
            try await Task.sleep(for: .milliseconds(50))
        }
        guard output.text.contains(marker) else {
            kill(process.processIdentifier, SIGKILL)
            throw ProcessDidNotStart(arguments: arguments, output: output.text)
        }
    }

    /// Sends SIGTERM to the process's own pid and returns at once.
    func terminate() {
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
    }

    /// The exit status once it exited, `nil` while it runs.
    var exitStatus: Int32? { process.isRunning ? nil : process.terminationStatus }

    /// Sends SIGTERM to the process's own pid and waits for it to exit.
    func stop() -> Int32 {
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// SIGKILL to the process's own pid (a crash: no chance to clean up), and waits
    /// for it to be gone.
    func crash() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}

struct ProcessDidNotStart: Error, CustomStringConvertible {
    let arguments: [String]
    let output: String
    var description: String { "pushgate \(arguments.joined(separator: " ")) did not start:\n\(output)" }
}

/// Text appended from a pipe's handler thread and read from the test's.
final class LogBuffer: Sendable {
    private let storage = Mutex("")

    func append(_ text: String) { storage.withLock { $0 += text } }
    var text: String { storage.withLock { $0 } }
}
