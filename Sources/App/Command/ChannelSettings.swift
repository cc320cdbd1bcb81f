import Foundation

/// What `pushgate hook --settings --channel` prints (issue 84): the MCP server entry
/// that makes `pushgate channel` Claude Code's channel, the hooks block without the
/// `PermissionRequest` hook but for `AskUserQuestion` (the channel relays the other
/// permission dialogs: one of the two, never both — a hook holds the dialog back while
/// it waits, the channel races it — and a channel's allow cannot carry answers), and
/// the flag Claude Code starts with. A channel that is no plugin on Anthropic's
/// allowlist loads only with `--dangerously-load-development-channels` during the
/// research preview (`--channels server:pushgate` where an administrator allowed it).
enum ChannelSettings {
    /// The server's name in `.mcp.json`: the `source` Claude shows its events under.
    static let serverName = "pushgate"

    /// `channelArguments`: `channel` and its options; `hooks`: the hooks block.
    static func text(executable: String, channelArguments: [String], hooks: String) -> String {
        let entry: [String: Any] = [
            "mcpServers": [serverName: ["command": executable, "args": channelArguments]]
        ]
        let json =
            (try? JSONSerialization.data(
                withJSONObject: entry, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]))
            .map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return """
            # 1. .mcp.json in the project (the channel is an MCP server Claude Code starts):
            \(json)

            # 2. .claude/settings.json: the hooks; the PermissionRequest hook for AskUserQuestion
            #    only (the channel relays the other permission dialogs; one of the two, never both):
            \(hooks)

            # 3. Start Claude Code with the channel (Claude Code 2.1.80 or later, 2.1.81 for
            #    permission dialogs; logged in with claude.ai; Team and Enterprise organizations
            #    must enable channels). A channel of your own loads during the research preview with
            claude --dangerously-load-development-channels server:\(serverName)
            #    or, where an administrator allowed it: claude --channels server:\(serverName)
            """
    }
}
