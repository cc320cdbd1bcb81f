import Foundation
import PushgateCore

/// `pushgate apns-emulator`, `fcm-emulator` or `webpush-emulator` on a free port, its state in
/// `directory/<command>`; the settings that point a gateway at it; what it
/// received. Stopped by its own pid.
final class RunningEmulator: Sendable {
    /// Which push service it stands in for.
    enum Service: String, Sendable {
        case apns, fcm, webpush

        var command: String { "\(rawValue)-emulator" }
        /// A setting it prints once listening, in the one write that prints them all
        /// (the APNs emulator prints its key's settings only when it made the key).
        var readyMarker: String { "PUSHGATE_\(rawValue.uppercased())_CA_FILE=" }
        var settingPrefix: String { "PUSHGATE_\(rawValue.uppercased())_" }
    }

    private let process: RunningProcess
    let service: Service
    /// `PUSHGATE_APNS_*` (URL, CA file, the key, its id, team and topic),
    /// `PUSHGATE_FCM_*` (credentials, URL, CA file) or `PUSHGATE_WEBPUSH_*` (the VAPID
    /// key, the subject, the CA file, private endpoints allowed).
    let settings: [String: String]
    /// `https://127.0.0.1:<port>` (`http://` for a Web Push emulator speaking plain
    /// HTTP), as its first line says.
    let url: String

    init(_ service: Service = .apns, directory: URL, arguments: [String] = []) async throws {
        self.service = service
        process = try await RunningProcess(
            [
                service.command, "--port", "0", "--state-directory",
                directory.appendingPathComponent(service.command).path,
            ]
                + arguments,
            readyWhen: service.readyMarker
        )
        var settings: [String: String] = [:]
        for line in process.capturedOutput.split(separator: "\n") where line.contains("export ") {
            let parts = line.split(separator: "export ", maxSplits: 1)[1].split(separator: "=", maxSplits: 1)
            settings[String(parts[0])] = String(parts[1])
        }
        self.settings = settings
        let title = process.capturedOutput
        guard let start = title.range(of: " on http") else { throw RunningEmulatorError(output: title) }
        url = "http" + title[start.upperBound...].prefix { !$0.isWhitespace && $0 != "," }
    }

    /// Sends SIGTERM to its own pid and waits for it to exit.
    func stop() async -> Int32 { await process.stop() }

    /// Sends SIGTERM to its own pid and returns at once (for `defer`).
    func terminate() { process.terminate() }

    /// How many requests it received so far.
    func received() async throws -> Int {
        let text = try await get("/inbox/count")
        guard case .number(let count)? = try JSONValue.parse(Array(text.utf8)).objectValue?["count"] else { return -1 }
        return Int(count)
    }

    /// The device tokens it accepted (200), and every request's token, in order.
    func inbox() async throws -> (accepted: Set<String>, all: [String]) {
        var accepted = Set<String>()
        var all: [String] = []
        for entry in try await entries() {
            guard let token = (entry["device_token"] ?? entry["token"])?.stringValue else { continue }
            all.append(token)
            if entry["status"] == 200 { accepted.insert(token) }
        }
        return (accepted, all)
    }

    /// Every request it kept, newest first, as `GET /inbox` shows them.
    func entries() async throws -> [[String: JSONValue]] {
        guard case .array(let entries) = try JSONValue.parse(Array(try await get("/inbox").utf8)) else { return [] }
        return entries.compactMap(\.objectValue)
    }

    /// curl, which verifies the emulator's certificate against its CA like any client.
    private func get(_ path: String) async throws -> String {
        try await APNsEndToEndTests.curl(["--cacert", settings[service.settingPrefix + "CA_FILE"]!, url + path])
    }
}

/// The emulator printed no address.
struct RunningEmulatorError: Error, CustomStringConvertible {
    let output: String

    var description: String { "the emulator printed no 'on https://…' line: \(output)" }
}
