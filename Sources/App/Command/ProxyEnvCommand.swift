import ArgumentParser
import Foundation
import PushgateClient

/// `pushgate proxy-env`: the agent server's env file given the push settings, as the
/// app does over SSH (the seed's `/etc/claude-proxy.env`): every other line kept, the
/// file replaced whole with mode 0600.
struct ProxyEnvCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "proxy-env",
        abstract: "Set the push secret and gateway URL in an env file.",
        discussion: """
            Sets CODEAGENTS_PUSH_SECRET and CODEAGENTS_PUSH_GATEWAY_BASE_URL, keeping every other line. The values come as pushgate trigger takes them: --url or CODEAGENTS_PUSH_GATEWAY_BASE_URL, --secret-file \
            or CODEAGENTS_PUSH_SECRET. A value not given keeps the file's; a file with no secret gets a new one \
            (32 random bytes, base64), and so does one whose secret breaks the rule. The file is replaced atomically, mode 0600, its owner and group kept; \
            a symlink is followed; edits at once take turns (a lock file beside it). The secret is never printed.
            """
    )

    @Option(help: "The env file to edit (made when missing).")
    var file: String

    @Option(help: "The gateway's base URL. Env: CODEAGENTS_PUSH_GATEWAY_BASE_URL.")
    var url: String?

    @Option(
        help: "A file holding the push secret (the secret alone, or an env file with it). Env: CODEAGENTS_PUSH_SECRET.")
    var secretFile: String?

    func run() throws {
        let environment = ProcessInfo.processInfo.environment
        let url = self.url ?? GatewayCallOptions.set(environment[ProxyEnvironmentFile.gatewayURLKey])
        if let given = url {
            guard let parsed = URL(string: given), ["http", "https"].contains(parsed.scheme ?? ""), parsed.host != nil
            else {
                throw CommandFailure("the gateway URL must be http(s)://host[:port][/path], not \(given)")
            }
        }
        let given = try givenSecret(environment: environment)
        var secretSource = ""
        var gatewaySource = "not set"
        // Read, decided and written under the file's lock: a secret generated here is
        // the one the file keeps, and another edit at the same moment sees this one's.
        let edit = try EnvironmentFileEdit.edit(file) { existing in
            let (secret, source) = Self.secret(given: given, existing: existing)
            secretSource = source
            var values = [(key: ProxyEnvironmentFile.secretKey, value: secret)]
            if let url {
                values.append((key: ProxyEnvironmentFile.gatewayURLKey, value: url))
                gatewaySource = url
            } else if let kept = ProxyEnvironmentFile.value(of: ProxyEnvironmentFile.gatewayURLKey, in: existing) {
                gatewaySource = "\(kept) (kept)"
            }
            return ProxyEnvironmentFile.upserting(values, into: existing)
        }
        let name = edit.target == file ? file : "\(file) (→ \(edit.target))"
        print(
            "\(name): \(ProxyEnvironmentFile.secretKey) \(secretSource), \(ProxyEnvironmentFile.gatewayURLKey) \(gatewaySource)"
        )
        if edit.wasShared, let mode = edit.previousMode {
            GatewayCallOptions.warnOnStandardError(
                "\(edit.target) was readable by others than its owner (mode \(String(mode, radix: 8))): now 0600, its owner's alone"
            )
        }
    }

    /// The secret given by `--secret-file` or the environment, checked; `nil` when none.
    private func givenSecret(environment: [String: String]) throws -> String? {
        let given: String?
        if let secretFile {
            guard let contents = try? String(contentsOfFile: secretFile, encoding: .utf8) else {
                throw CommandFailure("cannot read the secret file \(secretFile)")
            }
            given = GatewayCallOptions.secret(inFile: contents).trimmingCharacters(in: .whitespacesAndNewlines)
            if let warning = SecretFileExposure.warning(for: secretFile) {
                GatewayCallOptions.warnOnStandardError(warning)
            }
        } else {
            given = GatewayCallOptions.set(environment[ProxyEnvironmentFile.secretKey])
        }
        if let given, !PushSecretGenerator.isAcceptable(given) { throw CommandFailure(PushSecretGenerator.rule) }
        return given
    }

    /// The secret to write and where it came from: given, the file's own, or new (the
    /// file's replaced when it breaks the rule: the gateway would refuse it anyway).
    private static func secret(given: String?, existing: String) -> (String, String) {
        if let given { return (given, "set") }
        guard let kept = ProxyEnvironmentFile.value(of: ProxyEnvironmentFile.secretKey, in: existing) else {
            return (PushSecretGenerator.generate(), "generated")
        }
        guard PushSecretGenerator.isAcceptable(kept) else {
            return (
                PushSecretGenerator.generate(),
                "replaced (the file's did not meet the rule: \(PushSecretGenerator.rule))"
            )
        }
        return (kept, "kept")
    }
}
