import PushgateCore
import PushgateSealing

/// A checked `sayToAgent` body (see `functions/sayToAgent/`, issue 84): words a paired
/// phone sends an agent unasked, under an id the phone made, signed as a decision is
/// with the decision line `say:<agent_key>`.
public struct SayToAgentRequest: Sendable, Hashable {
    public let cwd: String
    public let installationID: String
    public let messageID: String
    public let message: String
    public let signedAt: Int64
    public let signature: String

    public init(fields: RequestFields) throws(FunctionError) {
        cwd = try FieldRules.cwd(fields.requiredString("cwd"))
        installationID = try FieldRules.installationID(fields.requiredString("installation_id"))
        messageID = try fields.requiredString("message_id")
        guard (1...200).contains(messageID.count) else {
            throw .invalidArgument("'message_id' must be 1 to 200 characters", field: "message_id")
        }
        message = try fields.optionalString("message", multiline: true) ?? ""
        guard message.contains(where: { !$0.isWhitespace }) else {
            throw .invalidArgument("'message' is required: the words for the agent", field: "message")
        }
        guard message.count <= SignedDecision.maxAnswerCharacters else {
            throw .invalidArgument(
                "'message' is \(message.count) characters; at most \(SignedDecision.maxAnswerCharacters) are allowed",
                field: "message")
        }
        (signedAt, signature) = try SignedDecisionFields.read(fields)
    }

    /// The message as the phone signed it, under `serverKey`.
    public func signed(serverKey: ServerKey) -> SignedDecision {
        SignedDecision(
            serverKey: serverKey.hex, eventID: messageID, installationID: installationID, decision: .say,
            signedAt: signedAt, message: message, signature: signature, scope: AgentKey(cwd: cwd).hex)
    }
}
