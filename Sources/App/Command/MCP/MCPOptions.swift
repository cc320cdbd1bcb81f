import ArgumentParser
import Foundation
import PushgateAgentSide
import PushgateCore

/// The options `pushgate mcp` and `pushgate channel` share: the gateway, as `pushgate
/// trigger` reaches it, the pins, and the agent.
struct MCPOptions: ParsableArguments {
    @OptionGroup var gateway: GatewayCallOptions

    @Option(help: "Seconds a call to the gateway may take (default 10).")
    var timeout: Double = 10

    @Option(
        help:
            "The file of the phones paired on this machine (as pushgate hook's; pushgate pair). Default: the secret file's path with .pins, else ~/.config/pushgate/decision-pins.json."
    )
    var pins: String?

    @Option(help: "The agent's folder when a tool names none (default: this server's working directory).")
    var cwd: String?

    /// The agent's folder.
    var agentCwd: String { cwd.map(HookSettings.absolute) ?? FileManager.default.currentDirectoryPath }

    /// The tools, reaching the gateway these options name. Refused here, loudly,
    /// rather than in every tool call.
    func tools() throws -> AgentTools {
        AgentTools(
            gateway: try gateway.agentGateway(), callTimeout: .seconds(try callTimeout()),
            pins: gateway.pinFile(option: pins), defaultCwd: agentCwd)
    }

    func callTimeout() throws -> Double { try GatewayCallOptions.checked(timeout: timeout) }
}
