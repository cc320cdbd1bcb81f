import Foundation
import PushgateAgentHooks
import PushgateCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The permission requests `pushgate channel` pushed and waits on (issue 84), one file
/// each beside the hook's (``PendingApprovals``), by agent: Claude Code never tells a
/// channel that its dialog was answered at the terminal, so the session's next hook
/// event that shows it (``settledBy(_:)``) takes the request's file and resolves the
/// approval `answered_elsewhere`, and the phones withdraw it. While the file is there,
/// the `Notification` of the same prompt sends no second push — unless the channel that
/// wrote it is gone (its process id no longer runs), whose requests any next event of
/// the session takes.
public struct ChannelApprovals: Sendable {
    public let directory: String

    public init(directory: String) {
        self.directory = directory
    }

    /// One request a channel waits on.
    public struct Entry: Sendable, Equatable, Codable {
        public let eventID: String
        public let toolName: String
        /// Claude Code's `input_preview`: the tool's input as JSON, cut at 200 characters.
        public let inputPreview: String
        /// The channel's process.
        public let processID: Int32

        public init(eventID: String, toolName: String, inputPreview: String, processID: Int32 = getpid()) {
            self.eventID = eventID
            self.toolName = toolName
            self.inputPreview = inputPreview
            self.processID = processID
        }

        /// Whether the channel that waits on it still runs (another user's answers EPERM).
        var isWaited: Bool { kill(processID, 0) == 0 || errno == EPERM }

        /// Whether a tool event of `toolName` with `toolInput` is this request's call:
        /// the same tool, and its main argument (command, file, URL, …) in the preview
        /// — letters, digits and spaces compared, as JSON may escape the rest.
        public func isCall(toolName: String?, toolInput: JSONValue?) -> Bool {
            guard toolName == self.toolName else { return false }
            let input = toolInput?.objectValue ?? [:]
            let argument = ChannelPermissionRequest.argumentKeys.lazy.compactMap { input[$0]?.stringValue }.first
            guard let argument else { return true }
            let wanted = String(Self.plain(argument).prefix(24))
            return wanted.isEmpty || Self.plain(inputPreview).contains(wanted)
        }

        private static func plain(_ text: String) -> String {
            String(
                text.unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) || $0 == " " }.map(Character.init))
        }
    }

    /// Notes that the channel of `cwd` waits on `entry`.
    public func record(_ entry: Entry, cwd: String) {
        guard PendingApprovals.prepare(directory: directory), let data = try? JSONEncoder().encode(entry) else {
            return
        }
        _ = FileManager.default.createFile(
            atPath: path(of: entry.eventID, cwd: cwd), contents: data, attributes: [.posixPermissions: 0o600])
    }

    /// The request of `eventID` is over.
    public func remove(eventID: String, cwd: String) {
        try? FileManager.default.removeItem(atPath: path(of: eventID, cwd: cwd))
    }

    /// The requests a running channel of `cwd` waits on.
    public func waiting(cwd: String) -> [Entry] {
        recorded(cwd: cwd).filter(\.isWaited)
    }

    private func recorded(cwd: String) -> [Entry] {
        let prefix = Self.agentPrefix(cwd)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        return names.filter { $0.hasPrefix(prefix) }.compactMap { name in
            guard let data = FileManager.default.contents(atPath: directory + "/" + name), data.count <= 8192 else {
                return nil
            }
            return try? JSONDecoder().decode(Entry.self, from: data)
        }
    }

    /// The requests of `event`'s agent that the event shows answered at the terminal,
    /// each removed as it is returned: a turn that goes on or ends (a prompt, a stop,
    /// the session's end) settles all of them; a tool that ran, failed or was denied
    /// settles its own. Nothing else does: a `PreToolUse` or a `Notification` comes
    /// while the dialog may be open still.
    public func takeSettled(by event: ClaudeHookEvent) -> [Entry] {
        let recorded = recorded(cwd: event.cwd)
        // A channel that is gone waits on nothing.
        var settled = recorded.filter { !$0.isWaited }
        switch event.eventName {
        case "UserPromptSubmit", "Stop", "StopFailure", "SessionEnd":
            settled = recorded
        case "PostToolUse", "PostToolUseFailure", "PermissionDenied":
            settled += recorded.filter {
                $0.isWaited && $0.isCall(toolName: event.toolName, toolInput: event.toolInput)
            }
        default:
            break
        }
        for entry in settled { remove(eventID: entry.eventID, cwd: event.cwd) }
        return settled
    }

    private func path(of eventID: String, cwd: String) -> String {
        directory + "/" + Self.agentPrefix(cwd) + String(SHA256Hex.digest(of: eventID).prefix(16))
    }

    /// Files of one agent share the start of their name (apart from the hook's).
    private static func agentPrefix(_ cwd: String) -> String {
        "channel-" + String(AgentKey(cwd: cwd).hex.prefix(16)) + "-"
    }
}
