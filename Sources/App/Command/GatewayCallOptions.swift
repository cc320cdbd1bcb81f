import ArgumentParser
import Foundation
import PushgateAgentSide
import PushgateClient
import PushgateCore

/// How `subscribe` and `trigger` reach a running gateway.
struct GatewayCallOptions: ParsableArguments {
    @Option(
        help:
            "The gateway's base URL. Env: CODEAGENTS_PUSH_GATEWAY_BASE_URL, else the secret file's line of it. Default: http://127.0.0.1:8080."
    )
    var url: String?

    @Option(
        help: ArgumentHelp(
            "A file holding the push secret: the secret alone, or an env file with a CODEAGENTS_PUSH_SECRET= line.",
            discussion: "Without it the secret comes from CODEAGENTS_PUSH_SECRET."
        )
    )
    var secretFile: String?

    /// A client for the gateway these options name, waiting `timeout` seconds for answers.
    /// A secret file that others can read is named in a warning on standard error,
    /// unless the caller says it elsewhere (`warning: false`).
    func client(timeout: Double, warning: Bool = true) throws -> GatewayClient {
        let environment = ProcessInfo.processInfo.environment
        let timeout = try Self.checked(timeout: timeout)
        let client = GatewayClient(
            baseURL: baseURL(environment: environment),
            secret: try secret(environment: environment),
            timeout: .seconds(timeout)
        )
        if warning, let secretFile, let exposure = SecretFileExposure.warning(for: secretFile) {
            Self.warnOnStandardError(exposure)
        }
        return client
    }

    /// The gateway these options name, as the agent's side reaches it (`warning` as
    /// for ``client(timeout:warning:)``).
    func agentGateway(warning: Bool = true) throws -> HTTPAgentGateway {
        let client = try client(timeout: 1, warning: warning)
        return client.http
    }

    /// Where the phones paired on this machine are pinned (`--pins`, else beside the
    /// secret file, else in the user's configuration directory).
    func pinFile(option: String?) -> PinFile {
        let home = ProcessInfo.processInfo.environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return PinFile(option: option, secretFile: secretFile, home: home)
    }

    /// `--timeout` when it is a number of seconds a call can wait (a `Duration` made
    /// from NaN, an infinity or a negative number would trap).
    static func checked(timeout: Double) throws -> Double {
        guard timeout.isFinite, timeout > 0, timeout <= 3_600 else {
            throw ValidationError("--timeout takes seconds above 0 and up to 3600, not \(timeout)")
        }
        return timeout
    }

    static func warnOnStandardError(_ warning: String) {
        StandardError.write("warning: " + warning + "\n")
    }

    /// The base URL, from the option, the environment, the secret file when it is an
    /// env file that names one, or the default.
    func baseURL(environment: [String: String]) -> String {
        url ?? Self.set(environment[ProxyEnvironmentFile.gatewayURLKey])
            ?? secretFile.flatMap { try? String(contentsOfFile: $0, encoding: .utf8) }.flatMap {
                ProxyEnvironmentFile.value(of: ProxyEnvironmentFile.gatewayURLKey, in: $0)
            } ?? "http://127.0.0.1:8080"
    }

    /// The push secret, from the file or the environment.
    func secret(environment: [String: String]) throws -> PushSecret {
        let text: String
        if let secretFile {
            guard let contents = try? String(contentsOfFile: secretFile, encoding: .utf8) else {
                throw ValidationError("cannot read the secret file \(secretFile)")
            }
            text = Self.secret(inFile: contents)
        } else if let value = Self.set(environment[ProxyEnvironmentFile.secretKey]) {
            text = value
        } else {
            throw ValidationError("no push secret: pass --secret-file or set CODEAGENTS_PUSH_SECRET")
        }
        guard let secret = PushSecret(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw ValidationError("the push secret must be \(PushSecret.rule)")
        }
        return secret
    }

    /// A variable's value, `nil` when it is unset or empty (`KEY=` in an env file).
    static func set(_ value: String?) -> String? {
        value.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The value of a `CODEAGENTS_PUSH_SECRET=` line (quotes removed) when the file
    /// has one, as `/etc/claude-proxy.env` does; else the whole file.
    static func secret(inFile contents: String) -> String {
        ProxyEnvironmentFile.value(of: ProxyEnvironmentFile.secretKey, in: contents) ?? contents
    }
}
