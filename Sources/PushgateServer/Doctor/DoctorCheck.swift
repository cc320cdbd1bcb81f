import Foundation

/// One line of `pushgate doctor`: what was checked, how it went, and what was found.
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
}
