import ArgumentParser
import Foundation
import PushgateAgentSide
import PushgateCore

/// `pushgate mcp` (issue 74): a Model Context Protocol server over standard input
/// and output, so that any agent with MCP reaches its person: `notify_user`,
/// `ask_user` (answered in words from the lock screen) and `list_devices`
/// (``AgentTools``), in the protocol's handshake era and its 2026-07-28 revision
/// (``MCPServer``). It reaches the gateway as `pushgate trigger` does.
struct MCPCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mcp",
        abstract: "Serve MCP tools: notify_user, ask_user, list_devices.",
        discussion: """
            Add it to an agent's MCP servers, e.g. for Claude Code:
              claude mcp add pushgate -- pushgate mcp --secret-file ~/.config/pushgate/secret
            Every tool takes an optional cwd: by default this server's working directory, which is the agent's. \
            Nothing but the protocol is written to standard output; what goes wrong is said on standard error \
            and in the tool's answer.
            """
    )

    /// The version of the tools it serves (their names and arguments), told to clients.
    static let toolsVersion = "1.0.0"

    @OptionGroup var options: MCPOptions

    func run() async throws {
        let server = MCPServer(
            transport: LineTransport(), tools: try options.tools(),
            identity: .init(
                name: "pushgate", version: Self.toolsVersion,
                instructions: "Reach the person who runs this agent on their phone: notify_user tells them something, "
                    + "ask_user asks and waits for their answer typed on the lock screen, list_devices shows where they get pushes."
            ))
        await server.run()
    }
}
