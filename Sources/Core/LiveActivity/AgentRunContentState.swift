import Foundation

/// What an agent's Live Activity shows (issue 64), decoded as is from the
/// `content-state` of the gateway's activity pushes: Swift's default `Codable` keys,
/// times as whole seconds since 1970 (plain numbers, so that no date strategy has to
/// be agreed on). ``AgentRunAttributes``'s `ContentState`.
public struct AgentRunContentState: Codable, Hashable, Sendable {
    /// Where the run is.
    public enum Phase: String, Codable, Hashable, Sendable {
        case running
        case waitingForApproval = "waiting_for_approval"
        case done
        case failed
    }

    public var phase: Phase
    /// What the agent is doing ("running tests"), when the hook or proxy said.
    public var step: String?
    /// Tools the agent used so far in this run.
    public var toolsUsed: Int?
    /// Seconds since 1970: when the run started, and when this state was sent.
    public var startedAt: Int
    public var updatedAt: Int
    /// The last reply's preview, when the caller allows previews.
    public var preview: String?
    /// Other members of the progress the agent side sent, as text.
    public var details: [String: String]

    public init(
        phase: Phase, step: String? = nil, toolsUsed: Int? = nil, startedAt: Int, updatedAt: Int,
        preview: String? = nil, details: [String: String] = [:]
    ) {
        self.phase = phase
        self.step = step
        self.toolsUsed = toolsUsed
        self.startedAt = startedAt
        self.updatedAt = updatedAt
        self.preview = preview
        self.details = details
    }

    public var startDate: Date { Date(timeIntervalSince1970: TimeInterval(startedAt)) }
    public var updateDate: Date { Date(timeIntervalSince1970: TimeInterval(updatedAt)) }
}
