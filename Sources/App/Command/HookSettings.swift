import Foundation
import PushgateClient

/// The `hooks` block `pushgate hook --settings` prints for `.claude/settings.json`:
/// a push when Claude stops and when it asks for something, and the run's start, its
/// tools (failed ones too), its subagents and the session's end for its Live
/// Activity, and a permission request waiting for a phone's decision: every event
/// the hook maps (``ClaudeHookEvent/mapped``).
enum HookSettings {
    /// The command line Claude Code runs: this executable by the path it was run as,
    /// made absolute, so that the hook works whatever Claude Code's `PATH` is. A
    /// symlink stays the link (`/usr/local/bin/pushgate`, which an upgrade points
    /// elsewhere; the path it resolves to today is gone after one).
    static func command(options: [String]) -> String {
        ([invokedExecutable(), "hook"] + options).map(shellQuoted).joined(separator: " ")
    }

    /// The path this executable was run as: `argv[0]` when it has a `/`, else the first
    /// match on `PATH`, as the shell searched; the resolved path if neither is found.
    static func invokedExecutable(
        arguments: [String] = CommandLine.arguments, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String {
        let resolved = Bundle.main.executablePath ?? "pushgate"
        guard let invoked = arguments.first, !invoked.isEmpty else { return resolved }
        if invoked.contains("/") { return absolute(invoked) }
        for directory in (environment["PATH"] ?? "").split(separator: ":", omittingEmptySubsequences: false) {
            let candidate = (directory.isEmpty ? "." : String(directory)) + "/" + invoked
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate, isDirectory: &isDirectory), !isDirectory.boolValue,
                FileManager.default.isExecutableFile(atPath: candidate)
            {
                return absolute(candidate)
            }
        }
        return resolved
    }

    /// `path` made absolute against the working directory, its `.` and `..` taken by
    /// name (as a shell's `cd` does), its symlinks kept.
    static func absolute(_ path: String) -> String {
        let whole = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var parts: [Substring] = []
        for part in whole.split(separator: "/") {
            switch part {
            case ".": continue
            case "..": _ = parts.popLast()
            default: parts.append(part)
            }
        }
        return "/" + parts.joined(separator: "/")
    }

    /// `decisionWait`: the PermissionRequest hook's wait for a phone's decision;
    /// `replyWait`: the Stop hook's for the person's words (0: none). Each `timeout`
    /// is above its wait, so that the agent never stops the hook while it waits.
    /// `permissionRequest`: `false` where `pushgate channel` relays the permission
    /// dialogs instead (issue 84): the hook then takes AskUserQuestion only.
    static func block(command: String, decisionWait: Double, replyWait: Double = 0, permissionRequest: Bool = true)
        -> String
    {
        let hook: [String: Any] = ["type": "command", "command": command, "timeout": 10]
        var waiting = hook
        waiting["timeout"] = Int(decisionWait.rounded(.up)) + 30
        var stop = hook
        if replyWait > 0 { stop["timeout"] = Int(replyWait.rounded(.up)) + 30 }
        return block(hook: hook, waiting: waiting, stop: stop, permissionRequest: permissionRequest)
    }

    /// The same events as HTTP hooks (issue 74): posted to the gateway's
    /// `/hooks/claude-code`, the secret read from Claude Code's environment
    /// (`CODEAGENTS_PUSH_SECRET`, the one variable the header may use); the
    /// PermissionRequest hook held there up to `decisionWait` (`?wait=`), the Stop hook
    /// up to `replyWait` for the person's words (`?reply_wait=`).
    static func httpBlock(gatewayURL: String, decisionWait: Int, replyWait: Int = 0) -> String {
        let url = gatewayURL.hasSuffix("/") ? String(gatewayURL.dropLast()) : gatewayURL
        let hook: [String: Any] = [
            "type": "http", "url": url + "/hooks/claude-code", "timeout": 10,
            "headers": ["Authorization": "Bearer $\(secretVariable)"], "allowedEnvVars": [secretVariable],
        ]
        var waiting = hook
        waiting["url"] = url + "/hooks/claude-code?wait=\(decisionWait)"
        waiting["timeout"] = decisionWait + 30
        var stop = hook
        if replyWait > 0 {
            stop["url"] = url + "/hooks/claude-code?reply_wait=\(replyWait)"
            stop["timeout"] = replyWait + 30
        }
        return block(hook: hook, waiting: waiting, stop: stop)
    }

    /// The environment variable an HTTP hook's header reads the push secret from.
    static let secretVariable = ProxyEnvironmentFile.secretKey

    /// `hook` for every event the hook maps, `waiting` for the PermissionRequest,
    /// `stop` for the Stop (which may wait for the person's reply).
    private static func block(
        hook: [String: Any], waiting: [String: Any], stop: [String: Any], permissionRequest: Bool = true
    ) -> String {
        var settings: [String: Any] = [
            "hooks": [
                "Stop": [["hooks": [stop]]],
                "Notification": [["hooks": [hook]]],
                // A run on the lock screen (issue 64): its start, and each tool as a step.
                "UserPromptSubmit": [["hooks": [hook]]],
                "PreToolUse": [["matcher": "*", "hooks": [hook]]],
                "PostToolUse": [["matcher": "*", "hooks": [hook]]],
                "PostToolUseFailure": [["matcher": "*", "hooks": [hook]]],
                // A subagent's end is a step of the run; the session's end ends it.
                "SubagentStop": [["hooks": [hook]]],
                "SessionEnd": [["hooks": [hook]]],
                // A turn that ended on an API error; a tool the auto mode denied (issue 83).
                "StopFailure": [["hooks": [hook]]],
                "PermissionDenied": [["matcher": "*", "hooks": [hook]]],
            ]
        ]
        if var hooks = settings["hooks"] as? [String: Any] {
            // An MCP server's form answered on a phone (issue 84).
            hooks["Elicitation"] = [["hooks": [waiting]]]
            // An approval answered on a phone (issue 73); where a channel relays the
            // approvals, only AskUserQuestion, whose choices a channel cannot carry.
            hooks["PermissionRequest"] = [["matcher": permissionRequest ? "*" : "AskUserQuestion", "hooks": [waiting]]]
            settings["hooks"] = hooks
        }
        guard
            let data = try? JSONSerialization.data(
                withJSONObject: settings, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    /// A word as a POSIX shell reads it back: bare when safe, else in single quotes.
    static func shellQuoted(_ word: String) -> String {
        let safe =
            !word.isEmpty
            && word.unicodeScalars.allSatisfy { scalar in
                scalar.isASCII
                    && (CharacterSet.alphanumerics.contains(scalar) || "-_./:=@%+,".unicodeScalars.contains(scalar))
            }
        return safe ? word : "'" + word.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}
