import PushgateAgentHooks
import PushgateCore

/// What a person said to a question, checked on this machine (``DecisionCheck``):
/// signed by the key paired here for the phone that said it.
public struct PersonDecision: Sendable, Equatable {
    public enum Said: Sendable, Equatable {
        case allow
        /// Allow, and apply this permission suggestion from now on (issue 84).
        case allowAlways(suggestion: JSONValue)
        /// The phone's reason, when it gave one.
        case deny(reason: String?)
        /// The person's words, in answer to a question or a reply.
        case words(String)
    }

    public let said: Said
    public let installationID: String
    /// The name the phone was paired under.
    public let deviceName: String?

    public init(said: Said, installationID: String, deviceName: String?) {
        self.said = said
        self.installationID = installationID
        self.deviceName = deviceName
    }

    /// Who said it, as a line names them: the device's name, else its installation.
    public var who: String { deviceName ?? installationID }

    /// What a hook prints for it.
    public var hookOutput: HookOutput {
        switch said {
        case .allow: .allow
        case .allowAlways(let suggestion): .allowAlways(updatedPermissions: [suggestion])
        case .deny(let reason): .deny(message: reason ?? "Denied from \(who)")
        case .words(let words): .continueWith(words: words)
        }
    }

    /// The decision in a word: allow, deny, answer.
    public var word: String {
        switch said {
        case .allow: "allow"
        case .allowAlways: "allow_always"
        case .deny: "deny"
        case .words: "answer"
        }
    }
}
