/// The `config.toml` lines `pushgate hook --settings --agent codex` prints (issue 74):
/// `notify`, the program Codex runs with each finished turn as its last argument (a
/// root key, so it must come before any table), and a `PermissionRequest` hook in
/// Codex's inline `[hooks]` tables, waiting for a phone's decision. With a reply wait
/// the finished turn goes to a `Stop` hook instead of `notify` (Codex's Stop hook
/// takes `{"decision": "block", "reason": …}` and goes on with the reason, as Claude
/// Code's does): both would push each reply twice. Codex runs a hook no administrator
/// manages only once the person has reviewed and trusted it (`/hooks`, which keeps the
/// command's hash under `[hooks.state]`): the lines say so (issue 83). `notify` needs
/// no trust.
enum CodexSettings {
    /// What the person does before Codex runs the hooks, said above them.
    static let trustSteps = """
        # Codex skips these hooks until you trust them: start codex, type /hooks, review each
        # pushgate hook and trust it (Codex keeps its hash under [hooks.state]). Changing the
        # command (another --decision-wait, say) asks for that review again.
        """

    /// `notifyArguments`: the notify program's words (this executable, `hook` and
    /// its options); `hookCommand`: the same as one shell command line.
    static func lines(notifyArguments: [String], hookCommand: String, decisionWait: Double, replyWait: Double = 0)
        -> String
    {
        let permission = """
            # A permission request answered on a phone (Codex waits for the hook before it prompts).
            [[hooks.PermissionRequest]]

            [[hooks.PermissionRequest.hooks]]
            type = "command"
            command = \(tomlString(hookCommand))
            timeout = \(Int(decisionWait.rounded(.up)) + 30)
            """
        guard replyWait > 0 else {
            return """
                # ~/.codex/config.toml: notify is a root key, above every [table].
                notify = [\(notifyArguments.map(tomlString).joined(separator: ", "))]

                \(trustSteps)
                \(permission)
                """
        }
        return """
            # ~/.codex/config.toml. Each reply is pushed by the Stop hook, which waits for the person's answer:
            # no notify line (it would push each reply twice).
            \(trustSteps)
            \(permission)

            [[hooks.Stop]]

            [[hooks.Stop.hooks]]
            type = "command"
            command = \(tomlString(hookCommand))
            timeout = \(Int(replyWait.rounded(.up)) + 30)
            """
    }

    /// `text` as a TOML basic string: quotes, backslashes and control characters escaped.
    static func tomlString(_ text: String) -> String {
        var quoted = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": quoted += "\\\""
            case "\\": quoted += "\\\\"
            case "\n": quoted += "\\n"
            case "\t": quoted += "\\t"
            case "\r": quoted += "\\r"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16, uppercase: true)
                    quoted += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    quoted.unicodeScalars.append(scalar)
                }
            }
        }
        return quoted + "\""
    }
}
