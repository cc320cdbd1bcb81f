import Foundation
import NIOConcurrencyHelpers
import PushgateTesting

/// A long-running `pushgate` command (serve, apns-emulator) with its output captured;
/// stopped by its own pid.
final class RunningProcess: Sendable {
    private let process: Process
    private let output = LogBuffer()

    var capturedOutput: String { output.text }
    var isRunning: Bool { process.isRunning }

    /// Starts `pushgate arguments…` and waits until its output contains `readyWhen`;
    /// with `shellSetup`, after those shell commands (limits: `ulimit -n 256`); with
    /// `privateMounts`, in a mount namespace of its own (`unshare -m`), where the
    /// setup may mount what only this process sees (a small disk: `mount -t tmpfs`),
    /// gone with it.
    init(
        _ arguments: [String], environment: [String: String] = [:], shellSetup: String? = nil,
        privateMounts: Bool = false, readyWhen marker: String
    ) async throws {
        process = Process()
        if let shellSetup {
            // The shell sets up, then becomes pushgate: the pid stays the gateway's
            // (unshare execs the shell, too).
            let shell = ["/bin/sh", "-c", "\(shellSetup) && exec \"$0\" \"$@\"", BuiltExecutable.url.path] + arguments
            process.executableURL = URL(fileURLWithPath: privateMounts ? "/usr/bin/unshare" : "/bin/sh")
            process.arguments =
                privateMounts ? ["--mount", "--propagation", "private"] + shell : Array(shell.dropFirst())
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

    /// Sends SIGTERM to the process's own pid and returns at once: for `defer`, which
    /// cannot wait without holding one of the threads every test's tasks share;
    /// `deinit` kills whatever is still running.
    func terminate() {
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
    }

    /// The exit status once it exited, `nil` while it runs.
    var exitStatus: Int32? { process.isRunning ? nil : process.terminationStatus }

    /// Sends SIGTERM to the process's own pid and waits for it to exit; one still
    /// running after `limit` is killed, and its status says so.
    func stop(limit: Duration = .seconds(60)) async -> Int32 {
        terminate()
        if await !exited(within: limit) { await crash() }
        return exitStatus ?? -1
    }

    /// SIGKILL to the process's own pid (a crash: no chance to clean up), and waits
    /// for it to be gone (SIGKILL cannot be ignored: only the reaping takes time).
    func crash() async {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        _ = await exited(within: .seconds(30))
    }

    /// Whether it exited within `limit`, polled without holding a thread (the tests'
    /// tasks share one per core, and `waitUntilExit` held one for as long as a
    /// process took to stop).
    func exited(within limit: Duration) async -> Bool {
        (try? await waitUntil("the process to exit", within: limit, every: .milliseconds(20)) { !process.isRunning })
            != nil
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
    private let storage = NIOLockedValueBox("")

    func append(_ text: String) { storage.withLockedValue { $0 += text } }
    var text: String { storage.withLockedValue { $0 } }
}
