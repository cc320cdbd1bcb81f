import Foundation
import PushgateCore

/// One line of `pushgate doctor`: what was checked, how it went, and what was found.
/// A push service's module makes its own (``PushServicePlugin/doctorChecks(_:logger:)``).
public struct DoctorCheck: Sendable, Hashable {
    public enum Outcome: String, Sendable, Hashable {
        case ok
        /// Not applicable to this configuration (no APNs key, no FCM service account).
        case skipped = "skip"
        case failed = "FAIL"
    }

    public let name: String
    public let outcome: Outcome
    public let detail: String

    public init(_ name: String, _ outcome: Outcome, _ detail: String) {
        self.name = name
        self.outcome = outcome
        self.detail = detail
    }

    /// `ok    database          pushgate.sqlite: writable, schema up to date`; a name
    /// longer than the column (`apns sandbox connection`) is kept whole.
    public var line: String {
        outcome.rawValue.padding(toLength: 6, withPad: " ", startingAt: 0)
            + name + String(repeating: " ", count: max(1, 16 - name.count)) + detail
    }

    /// `<service> host` (`addresses` it resolved to) and `<service> connection`
    /// (`connect` opened it: TLS trusted by `trust`, then HTTP/2), the connection
    /// tried only when the host resolves.
    public static func reachability(
        _ service: String, host: String, endpoint: String, addresses: [String], trust: String,
        connect: () async throws -> Void
    ) async -> [DoctorCheck] {
        guard !addresses.isEmpty else { return [DoctorCheck("\(service) host", .failed, "\(host) does not resolve")] }
        var checks = [
            DoctorCheck("\(service) host", .ok, "\(host) resolves to \(addresses.prefix(3).joined(separator: ", "))")
        ]
        do {
            try await connect()
            checks.append(
                DoctorCheck("\(service) connection", .ok, "\(endpoint): TLS trusted by \(trust), HTTP/2 negotiated"))
        } catch {
            checks.append(DoctorCheck("\(service) connection", .failed, "\(endpoint): \(error)"))
        }
        return checks
    }

    /// The `skip` line of a service not configured: the setting it lacks, and what
    /// its devices (`devices`: "APNs tokens") fail with meanwhile.
    public static func notConfigured(_ name: String, _ format: PushAddressFormat, devices: String) -> DoctorCheck {
        DoctorCheck(
            name, .skipped, "no \(format.configuredBy): devices with \(devices) fail \(format.unconfiguredReason)")
    }

    /// The roots a service's TLS trusts, in words.
    public static func trust(extraCAFile: String?) -> String {
        extraCAFile.map { "the system's roots and \($0)" } ?? "the system's roots"
    }
}
