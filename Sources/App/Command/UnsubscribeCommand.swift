import ArgumentParser
import PushgateCore

struct UnsubscribeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unsubscribe",
        abstract: "Stop a device's pushes for one agent, or --all.",
        discussion: "Calls unregisterSubscription for one agent (--cwd), or unregisterInstallation with --all."
    )

    @OptionGroup var gateway: GatewayCallOptions

    @Option(help: "The agent's working directory (not with --all).")
    var cwd: String?

    @Option(help: "The app installation's id.")
    var installationId: String

    @Flag(help: "Every agent of this server.")
    var all = false

    @Option(help: "Seconds to wait for the answer.")
    var timeout: Double = 10

    func validate() throws {
        guard all == (cwd == nil) else { throw ValidationError("pass --cwd, or --all, not both") }
    }

    func run() async throws {
        let client = try gateway.client(timeout: timeout)
        if let cwd {
            try await client.call(
                "unregisterSubscription", body: ["cwd": .string(cwd), "installation_id": .string(installationId)])
        } else {
            try await client.call("unregisterInstallation", body: ["installation_id": .string(installationId)])
        }
    }
}
