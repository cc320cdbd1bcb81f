import ArgumentParser
import Foundation
import PushgateClient
import PushgateCore
import PushgateSealing

/// `pushgate say` (issue 84): words into a running agent's session from a shell, as a
/// paired phone sends them (`sayToAgent`), signed with the key `pushgate subscribe
/// --decision-key-file` registered for the installation: `pushgate channel` hands them
/// to Claude Code; without a channel they wait at `GET /replies`.
struct SayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "say",
        abstract: "Send words to a running agent (sayToAgent).",
        discussion: """
            The installation must be subscribed to the agent with the key's public half \
            (pushgate subscribe --decision-key-file), and paired on the agent's machine (pushgate pair) for \
            the agent's side to hear it.
            """
    )

    @OptionGroup var gateway: GatewayCallOptions

    @Option(help: "The agent's folder on its machine (default: this directory).")
    var cwd: String?

    @Option(help: "The sending installation's id.")
    var installationId: String

    @Option(help: "The file of its decision key (made by pushgate subscribe --decision-key-file).")
    var decisionKeyFile: String

    @Option(help: "Seconds to wait for the answer.")
    var timeout: Double = 5

    @Argument(help: "The words (1 to 4,000 characters).")
    var words: String

    func validate() throws {
        guard words.contains(where: { !$0.isWhitespace }), words.count <= SignedDecision.maxAnswerCharacters else {
            throw ValidationError("the words take 1 to \(SignedDecision.maxAnswerCharacters) characters")
        }
    }

    func run() async throws {
        let client = try gateway.client(timeout: timeout)
        let key = try DecisionKeyFile(path: decisionKeyFile).load()
        let cwd = self.cwd.map(HookSettings.absolute) ?? FileManager.default.currentDirectoryPath
        let messageID = "say-" + UUID().uuidString.lowercased()
        let signed = try key.sign(
            serverKey: client.secret.serverKey.hex, eventID: messageID, installationID: installationId, decision: .say,
            signedAt: Int64(Date().timeIntervalSince1970), message: words, scope: AgentKey(cwd: cwd).hex)
        try await client.call(
            "sayToAgent",
            body: [
                "cwd": .string(cwd), "installation_id": .string(installationId), "message_id": .string(messageID),
                "message": .string(words), "signed_at": .number(Double(signed.signedAt)),
                "signature": .string(signed.signature),
            ])
    }
}
