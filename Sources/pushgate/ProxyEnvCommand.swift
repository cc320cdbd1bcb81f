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
            (32 random bytes, base64). The file is written atomically, mode 0600. The secret is never printed.
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
        let existing: String
        if FileManager.default.fileExists(atPath: file) {
            guard let contents = try? String(contentsOfFile: file, encoding: .utf8) else {
                throw CommandFailure("cannot read \(file) as UTF-8 text")
            }
            existing = contents
        } else {
            existing = ""
        }

        let (secret, secretSource) = try secret(environment: environment, existing: existing)
        var values = [(key: ProxyEnvironmentFile.secretKey, value: secret)]
        var gatewaySource = "not set"
        if let url = url ?? GatewayCallOptions.set(environment[ProxyEnvironmentFile.gatewayURLKey]) {
            guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme ?? ""), parsed.host != nil
            else {
                throw CommandFailure("the gateway URL must be http(s)://host[:port][/path], not \(url)")
            }
            values.append((key: ProxyEnvironmentFile.gatewayURLKey, value: url))
            gatewaySource = url
        } else if let kept = ProxyEnvironmentFile.value(of: ProxyEnvironmentFile.gatewayURLKey, in: existing) {
            gatewaySource = "\(kept) (kept)"
        }
        let updated = ProxyEnvironmentFile.upserting(values, into: existing)
        do {
            try PrivateFile.write(Data(updated.utf8), to: file)
        } catch {
            throw CommandFailure(error.description)
        }
        print(
            "\(file): \(ProxyEnvironmentFile.secretKey) \(secretSource), \(ProxyEnvironmentFile.gatewayURLKey) \(gatewaySource)"
        )
    }

    /// The secret to write and where it came from: given, the file's own, or new.
    private func secret(environment: [String: String], existing: String) throws -> (String, String) {
        let given: String?
        if let secretFile {
            guard let contents = try? String(contentsOfFile: secretFile, encoding: .utf8) else {
                throw CommandFailure("cannot read the secret file \(secretFile)")
            }
            given = GatewayCallOptions.secret(inFile: contents).trimmingCharacters(in: .whitespacesAndNewlines)
        } else {
            given = GatewayCallOptions.set(environment[ProxyEnvironmentFile.secretKey])
        }
        if let given {
            guard PushSecretGenerator.isAcceptable(given) else {
                throw CommandFailure(PushSecretGenerator.rule)
            }
            return (given, "set")
        }
        if let kept = ProxyEnvironmentFile.value(of: ProxyEnvironmentFile.secretKey, in: existing),
            PushSecretGenerator.isAcceptable(kept)
        {
            return (kept, "kept")
        }
        return (PushSecretGenerator.generate(), "generated")
    }
}
