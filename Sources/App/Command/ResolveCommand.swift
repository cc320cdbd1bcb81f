import ArgumentParser
import PushgateCore

struct ResolveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resolve",
        abstract: "Mark an approval answered (resolveEvent).",
        discussion: "Its reminders not yet sent are withdrawn; the badges it counted go down."
    )

    @OptionGroup var gateway: GatewayCallOptions

    @Option(help: "The approval's event id.")
    var eventId: String

    @Option(help: "How it was answered, e.g. approved or denied.")
    var resolution: String?

    @Option(help: "Seconds to wait for the answer.")
    var timeout: Double = 5

    func run() async throws {
        var body: [String: JSONValue] = ["event_id": .string(eventId)]
        body["resolution"] = resolution.map(JSONValue.string)
        try await gateway.client(timeout: timeout).call("resolveEvent", body: body)
    }
}
