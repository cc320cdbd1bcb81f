import Foundation

/// The `hooks` block `pushgate hook --settings` prints for `.claude/settings.json`:
/// a push when Claude stops and when it asks for something. `SubagentStop` is left
/// out (a push per subagent would be noise); the hook handles it when added.
enum HookSettings {
    /// The command line Claude Code runs: this executable by its full path, so that
    /// the hook works whatever Claude Code's `PATH` is.
    static func command(options: [String]) -> String {
        let executable = Bundle.main.executablePath ?? CommandLine.arguments.first ?? "pushgate"
        return ([executable, "hook"] + options).map(shellQuoted).joined(separator: " ")
    }

    static func block(command: String) -> String {
        let hook: [String: Any] = ["type": "command", "command": command, "timeout": 10]
        let settings: [String: Any] = [
            "hooks": [
                "Stop": [["hooks": [hook]]],
                "Notification": [["hooks": [hook]]],
            ]
        ]
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
