import Foundation
import PushgateCore

/// `pushgate apns-emulator` on a free port, its state in `directory/emulator`; the
/// settings that point a gateway at it; what it received. Stopped by its own pid.
final class RunningEmulator: Sendable {
    private let process: RunningProcess
    /// `PUSHGATE_APNS_URL`, `PUSHGATE_APNS_CA_FILE`, the key, its id, team and topic.
    let settings: [String: String]

    init(directory: URL, arguments: [String] = []) throws {
        process = try RunningProcess(
            ["apns-emulator", "--port", "0", "--state-directory", directory.appendingPathComponent("emulator").path]
                + arguments,
            readyWhen: "PUSHGATE_APNS_TOPIC="
        )
        var settings: [String: String] = [:]
        for line in process.capturedOutput.split(separator: "\n") where line.contains("export ") {
            let parts = line.split(separator: "export ", maxSplits: 1)[1].split(separator: "=", maxSplits: 1)
            settings[String(parts[0])] = String(parts[1])
        }
        self.settings = settings
    }

    func stop() -> Int32 { process.stop() }

    /// How many pushes it received so far.
    func received() throws -> Int {
        let text = try get("/inbox/count")
        guard case .number(let count)? = try JSONValue.parse(Array(text.utf8)).objectValue?["count"] else { return -1 }
        return Int(count)
    }

    /// The device tokens it accepted (200), and every request's token, in order.
    func inbox() throws -> (accepted: Set<String>, all: [String]) {
        guard case .array(let entries) = try JSONValue.parse(Array(try get("/inbox").utf8)) else { return ([], []) }
        var accepted = Set<String>()
        var all: [String] = []
        for entry in entries {
            guard let token = entry.objectValue?["device_token"]?.stringValue else { continue }
            all.append(token)
            if entry.objectValue?["status"] == 200 { accepted.insert(token) }
        }
        return (accepted, all)
    }

    /// curl, which verifies the emulator's certificate against its CA like any client.
    private func get(_ path: String) throws -> String {
        try APNsEndToEndTests.curl([
            "--cacert", settings["PUSHGATE_APNS_CA_FILE"]!, settings["PUSHGATE_APNS_URL"]! + path,
        ])
    }
}
