import ArgumentParser
import Foundation
import PushgateCore

struct TriggerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trigger",
        abstract: "Notify an agent's devices that a reply is ready (calls triggerReplyFinished)."
    )

    @OptionGroup var gateway: GatewayCallOptions

    @Option(help: "The agent's working directory on its server.")
    var cwd: String

    @Option(help: "The reply's text, shown (shortened) as the notification body.")
    var message: String?

    @Option(help: "The conversation the reply belongs to.")
    var conversationId: String?

    @Option(help: "Seconds to wait for the answer, so a proxy or a shell hook is never held up.")
    var timeout: Double = 5

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        var body: [String: JSONValue] = ["cwd": .string(cwd)]
        body["message_preview"] = message.map(JSONValue.string)
        body["conversation_id"] = conversationId.map(JSONValue.string)
        body["finished_at"] = .string(RFC3339.format(Date()))
        let client = GatewayClient(
            baseURL: gateway.baseURL(environment: environment),
            secret: try gateway.secret(environment: environment),
            timeout: .seconds(timeout)
        )
        try await client.call("triggerReplyFinished", body: body)
    }
}
