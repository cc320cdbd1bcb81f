import ArgumentParser
import Foundation
import Logging
import PushgateCore
import PushgatePostgres
import PushgateServer

struct OutboxCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "outbox",
        abstract: "List pending and failed deliveries with their reasons.",
        discussion: "Reads the gateway's database directly (it may be running). Tokens are shortened."
    )

    enum StateFilter: String, ExpressibleByArgument, CaseIterable {
        case pending, failed, delivered, cancelled, unfinished, all

        var states: Set<DeliveryState> {
            switch self {
            case .pending: [.pending]
            case .failed: [.failed]
            case .delivered: [.delivered]
            case .cancelled: [.cancelled]
            case .unfinished: [.pending, .failed]
            case .all: Set(DeliveryState.allCases)
            }
        }
    }

    @OptionGroup var database: DatabaseOptions

    @Option(
        help:
            "Which deliveries: pending, failed, delivered, cancelled (withdrawn when the device unsubscribed), unfinished (pending and failed) or all."
    )
    var state: StateFilter = .unfinished

    @Option(help: "At most this many, newest first.")
    var limit = 50

    @Flag(help: "One JSON object per line instead of a table.")
    var json = false

    func run() async throws {
        let path = try database.existing()
        var logger = Logger(label: "pushgate-outbox")
        logger.logLevel = .warning
        let (stats, entries) = try await StoreBackend.using(path, logger: logger) { backend in
            (
                try await backend.outbox.stats(now: Date()),
                try await backend.outbox.entries(in: state.states, limit: limit)
            )
        }
        if json {
            for entry in entries {
                print(String(decoding: try Self.json(entry).encodedData(), as: UTF8.self))
            }
            return
        }
        let oldest = stats.oldestDueSince.map { " (oldest due \(Int(Date().timeIntervalSince($0))) s)" } ?? ""
        print(
            "pending: \(stats.pending)\(oldest), scheduled: \(stats.scheduled), failed: \(stats.failed), expanding: \(stats.expanding)"
        )
        guard !entries.isEmpty else { return }
        print(
            ["state", "provider", "attempts", "next try", "last reason", "token", "installation", "notification"]
                .joined(separator: "\t")
        )
        for entry in entries {
            print(
                [
                    entry.state.rawValue,
                    // `apns/sandbox` when the device's environment is known, else as before.
                    entry.token.kind.rawValue + (Self.environment(of: entry).map { "/" + $0 } ?? ""),
                    "\(entry.attempts)",
                    entry.nextAttemptAt.map(RFC3339.format) ?? "-",
                    entry.lastReason ?? "-", "\(entry.token)", entry.installationID,
                    String(entry.notificationID.prefix(8)),
                ].joined(separator: "\t")
            )
        }
    }

    private static func json(_ entry: OutboxEntry) -> JSONValue {
        var object: [String: JSONValue] = [
            "notification_id": .string(entry.notificationID),
            "agent_key": .string(entry.agentKey),
            "installation_id": .string(entry.installationID),
            "provider": .string(entry.token.kind.rawValue),
            "token": .string("\(entry.token)"),
            "state": .string(entry.state.rawValue),
            "attempts": .number(Double(entry.attempts)),
            "enqueued_at": .string(RFC3339.format(entry.enqueuedAt)),
        ]
        object["next_attempt_at"] = entry.nextAttemptAt.map { .string(RFC3339.format($0)) }
        object["last_reason"] = entry.lastReason.map(JSONValue.string)
        object["app"] = entry.route.app.map(JSONValue.string)
        object["apns_environment"] = environment(of: entry).map(JSONValue.string)
        return .object(object)
    }

    /// A delivery's environment when its route names one (stated or learned: only
    /// an address of a service with environments, APNs, has one); `nil`: the
    /// gateway's default.
    private static func environment(of entry: OutboxEntry) -> String? {
        entry.route.environment?.rawValue
    }
}
