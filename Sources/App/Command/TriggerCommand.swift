import ArgumentParser
import Foundation
import PushgateCore

struct TriggerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trigger",
        abstract: "Say an agent's reply is ready (triggerReplyFinished)."
    )

    @OptionGroup var gateway: GatewayCallOptions

    @Option(help: "The agent's working directory on its server.")
    var cwd: String

    @Option(help: "The reply's text, shown (shortened) as the notification body.")
    var message: String?

    @Option(help: "The conversation the reply belongs to.")
    var conversationId: String?

    @Flag(help: "Answer as soon as the gateway stored the notification (202), without waiting for the first try.")
    var noWait = false

    @Option(help: "Seconds to wait for the answer, so a proxy or a shell hook is never held up.")
    var timeout: Double = 5

    func run() async throws {
        var body: [String: JSONValue] = ["cwd": .string(cwd)]
        body["message_preview"] = message.map(JSONValue.string)
        body["conversation_id"] = conversationId.map(JSONValue.string)
        body["finished_at"] = .string(RFC3339.format(Date()))
        if noWait { body["wait"] = false }
        try await gateway.client(timeout: timeout).call("triggerReplyFinished", body: body)
    }
}
