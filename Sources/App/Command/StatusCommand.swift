import ArgumentParser
import PushgateCore

/// `pushgate status --event-id …` (issue 75): what became of an event's push on each
/// installation (`eventStatus`).
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show how an event's push went on each device.",
        discussion:
            "Per installation, oldest first: accepted, sent (service, message id), refused (why), retrying (why, next try), decided. The event id is the one its trigger's answer named."
    )

    @OptionGroup var gateway: GatewayCallOptions

    @Option(help: "The event's id, as its trigger's answer named it.")
    var eventId: String

    @Option(help: "Seconds to wait for the answer.")
    var timeout: Double = 5

    func run() async throws {
        try await gateway.client(timeout: timeout).call("eventStatus", body: ["event_id": .string(eventId)])
    }
}
