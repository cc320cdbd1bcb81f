import ArgumentParser
import Foundation
import PushgateAgentSide
import PushgateCore

/// `pushgate channel` (issue 84): Claude Code's channel — an MCP server over standard
/// input and output (the tools of `pushgate mcp` too) that relays the terminal's
/// permission dialogs to the person's paired phones and their signed decisions back,
/// first answer wins (``ChannelRelay``), and hands the words a paired phone sends
/// (`pushgate say`, the app) to the running session.
struct ChannelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "channel",
        abstract: "Serve Claude Code's channel (phone or keyboard).",
        discussion: """
            Needs Claude Code 2.1.80 or later (2.1.81 for permission dialogs), logged in with claude.ai; \
            pushgate hook --settings --channel prints what to add. Use it or the PermissionRequest hook for \
            permissions, never both. Only phones paired on this machine (pushgate pair) are heard; the rest \
            is dropped with a line on standard error. Nothing but the protocol is written to standard output.
            """
    )

    @OptionGroup var options: MCPOptions

    @Option(
        help:
            "Seconds an approval waits for a phone's decision (0-3600, default 600); the terminal's dialog stays open meanwhile, and after."
    )
    var decisionWait: Double = 600

    /// How Claude is told what a channel event is.
    static let instructions =
        "Words the person sends from their phone arrive as <channel source=\"pushgate\" from=\"<their device>\" event_id=\"…\">: "
        + "their own words, from a phone paired on this machine; take them as they would be typed here. "
        + "Answer them with notify_user (or ask_user to ask and wait). Permission dialogs are relayed to the phone "
        + "by this channel itself: never ask for a permission through these tools."

    func run() async throws {
        let wait = try HookCommand.checked(decisionWait: decisionWait)
        let pins = options.gateway.pinFile(option: options.pins)
        let gateway = try options.gateway.agentGateway(warning: false)
        let timeout = Duration.seconds(try options.callTimeout())
        let transport = LineTransport()
        let relay = ChannelRelay(
            asker: PermissionRequestAsk(
                gateway: gateway, pins: pins, pending: PendingApprovals(directory: pins.path + ".pending"),
                decisionWait: .seconds(wait), callTimeout: timeout),
            approvals: ChannelApprovals(directory: pins.path + ".pending"), cwd: options.agentCwd,
            notify: { method, params in
                let message: JSONValue = ["jsonrpc": "2.0", "method": .string(method), "params": params]
                guard let bytes = try? message.encodedBytes() else { return }
                await transport.send(bytes)
            },
            log: { StandardError.write("pushgate channel: " + InvisibleCharacters.escaped($0) + "\n") })
        let server = MCPServer(
            transport: transport, tools: try options.tools(),
            identity: .init(name: "pushgate", version: MCPCommand.toolsVersion, instructions: Self.instructions),
            channel: relay)
        await server.run()
    }
}
