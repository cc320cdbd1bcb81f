import Foundation

/// The gateway's answers the agent's side reads, typed: each decoded from the
/// function's JSON as `functions/` describes it, never read key by key.
public enum GatewayAnswers {
    /// Decodes `Answer` from an answer's body; `nil` for a body of another form.
    static func decode<Answer: Decodable>(_ type: Answer.Type, from body: [UInt8]) -> Answer? {
        try? JSONDecoder().decode(type, from: Data(body))
    }
}
