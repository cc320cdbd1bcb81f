import ArgumentParser
import Foundation
import PushgateCore

/// How `subscribe` and `trigger` reach a running gateway.
struct GatewayCallOptions: ParsableArguments {
    @Option(help: "The gateway's base URL. Env: CODEAGENTS_PUSH_GATEWAY_BASE_URL. Default: http://127.0.0.1:8080.")
    var url: String?

    @Option(
        help: ArgumentHelp(
            "A file holding the push secret: the secret alone, or an env file with a CODEAGENTS_PUSH_SECRET= line.",
            discussion: "Without it the secret comes from CODEAGENTS_PUSH_SECRET."
        )
    )
    var secretFile: String?

    /// A client for the gateway these options name, waiting `timeout` seconds for answers.
    func client(timeout: Double) throws -> GatewayClient {
        let environment = ProcessInfo.processInfo.environment
        return GatewayClient(
            baseURL: baseURL(environment: environment),
            secret: try secret(environment: environment),
            timeout: .seconds(timeout)
        )
    }

    /// The base URL, from the option, the environment or the default.
    func baseURL(environment: [String: String]) -> String {
        url ?? environment["CODEAGENTS_PUSH_GATEWAY_BASE_URL"] ?? "http://127.0.0.1:8080"
    }

    /// The push secret, from the file or the environment.
    func secret(environment: [String: String]) throws -> PushSecret {
        let text: String
        if let secretFile {
            guard let contents = try? String(contentsOfFile: secretFile, encoding: .utf8) else {
                throw ValidationError("cannot read the secret file \(secretFile)")
            }
            text = Self.secret(inFile: contents)
        } else if let value = environment["CODEAGENTS_PUSH_SECRET"] {
            text = value
        } else {
            throw ValidationError("no push secret: pass --secret-file or set CODEAGENTS_PUSH_SECRET")
        }
        guard let secret = PushSecret(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw ValidationError("the push secret must be \(PushSecret.rule)")
        }
        return secret
    }

    /// The value of a `CODEAGENTS_PUSH_SECRET=` line (quotes removed) when the file
    /// has one, as `/etc/claude-proxy.env` does; else the whole file.
    static func secret(inFile contents: String) -> String {
        let prefix = "CODEAGENTS_PUSH_SECRET="
        for line in contents.split(whereSeparator: \.isNewline) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            let assignment = trimmed.hasPrefix("export ") ? String(trimmed.dropFirst(7)) : trimmed
            if assignment.hasPrefix(prefix) {
                return String(assignment.dropFirst(prefix.count)).trimmingCharacters(
                    in: CharacterSet(charactersIn: "\"'"))
            }
        }
        return contents
    }
}
