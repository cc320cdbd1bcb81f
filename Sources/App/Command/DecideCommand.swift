import ArgumentParser
import Foundation
import PushgateClient
import PushgateCore
import PushgateSealing

/// `pushgate decide`: a phone's answer to an approval from a shell (issue 73), signed
/// with the key `pushgate subscribe --decision-key-file` registered for the
/// installation, as the app signs it.
struct DecideCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decide",
        abstract: "Answer an approval or a question (decideEvent).",
        discussion: """
            The installation must have been sent the event and have registered the key's public half \
            (pushgate subscribe --decision-key-file). A waiting `pushgate hook` prints the decision for its agent. \
            --answer answers a question (or an answerable reply) in words.
            """
    )

    @OptionGroup var gateway: GatewayCallOptions

    @Option(help: "The approval's event id.")
    var eventId: String

    @Option(help: "The deciding installation's id.")
    var installationId: String

    @Option(help: "The file of its decision key (made by pushgate subscribe --decision-key-file).")
    var decisionKeyFile: String

    @Flag(help: "Allow the request.")
    var allow = false

    @Flag(help: "Deny the request.")
    var deny = false

    @Option(help: "The reason given to the agent (at most 1,000 characters).")
    var message: String?

    @Option(help: "Answer a question or a reply with these words (at most 4,000 characters).")
    var answer: String?

    @Option(help: "Seconds to wait for the answer.")
    var timeout: Double = 5

    func validate() throws {
        guard [allow, deny, answer != nil].filter({ $0 }).count == 1 else {
            throw ValidationError("pass one of --allow, --deny and --answer")
        }
        if let message, message.count > SignedDecision.maxMessageCharacters {
            throw ValidationError("--message takes at most \(SignedDecision.maxMessageCharacters) characters")
        }
        if let answer {
            guard message == nil else { throw ValidationError("--answer is the message: leave --message out") }
            guard answer.contains(where: { !$0.isWhitespace }), answer.count <= SignedDecision.maxAnswerCharacters
            else { throw ValidationError("--answer takes 1 to \(SignedDecision.maxAnswerCharacters) characters") }
        }
    }

    private var decision: SignedDecision.Decision {
        answer != nil ? .answer : allow ? .allow : .deny
    }

    func run() async throws {
        let client = try gateway.client(timeout: timeout)
        let key = try DecisionKeyFile(path: decisionKeyFile).load()
        let message = answer ?? message
        let signed = try key.sign(
            serverKey: client.secret.serverKey.hex, eventID: eventId, installationID: installationId,
            decision: decision, signedAt: Int64(Date().timeIntervalSince1970), message: message)
        var body: [String: JSONValue] = [
            "event_id": .string(eventId), "installation_id": .string(installationId),
            "decision": .string(signed.decision.rawValue), "signed_at": .number(Double(signed.signedAt)),
            "signature": .string(signed.signature),
        ]
        body["message"] = message.map(JSONValue.string)
        try await client.call("decideEvent", body: body)
    }
}
