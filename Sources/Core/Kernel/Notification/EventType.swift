import Foundation

/// What happened: one of the known kinds, each with its defaults, or a custom name.
public enum EventType: Sendable, Hashable, CustomStringConvertible {
    case replyFinished
    case approvalRequested
    case runCompleted
    case runFailed
    /// An agent's run began (issue 64): starts its Live Activity, sends no ordinary push.
    case runStarted
    /// A step of a run: updates its Live Activity, sends no ordinary push.
    case runProgress
    /// The run is over without a reply (the session ended, an interrupt): ends its
    /// Live Activity, sends no ordinary push (issue 72).
    case runEnded
    /// The agent asks its person something and waits for words back (issue 74):
    /// answerable from the lock screen, like an approval it is time-sensitive.
    case questionAsked
    /// `[a-z][a-z0-9_]{0,39}`, not one of the above.
    case custom(String)

    public init?(rawValue: String) {
        switch rawValue {
        case "reply_finished": self = .replyFinished
        case "approval_requested": self = .approvalRequested
        case "run_completed": self = .runCompleted
        case "run_failed": self = .runFailed
        case "run_started": self = .runStarted
        case "run_progress": self = .runProgress
        case "run_ended": self = .runEnded
        case "question_asked": self = .questionAsked
        default:
            let bytes = Array(rawValue.utf8)
            guard (1...40).contains(bytes.count), (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(bytes[0]),
                bytes.allSatisfy({
                    (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0)
                        || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                        || $0 == UInt8(ascii: "_")
                })
            else { return nil }
            self = .custom(rawValue)
        }
    }

    public var rawValue: String {
        switch self {
        case .replyFinished: "reply_finished"
        case .approvalRequested: "approval_requested"
        case .runCompleted: "run_completed"
        case .runFailed: "run_failed"
        case .runStarted: "run_started"
        case .runProgress: "run_progress"
        case .runEnded: "run_ended"
        case .questionAsked: "question_asked"
        case .custom(let name): name
        }
    }

    public var description: String { rawValue }

    /// The title when none is given; `nil`: the agent's name.
    public var defaultTitle: String? {
        switch self {
        case .approvalRequested: "Approval needed"
        case .runCompleted: "Run completed"
        case .runFailed: "Run failed"
        case .runStarted: "Run started"
        case .questionAsked: "Question"
        case .replyFinished, .runProgress, .runEnded, .custom: nil
        }
    }

    /// Whether the event only drives the agent's Live Activity: no ordinary push
    /// goes to the devices' tokens (a run's start, its steps and an end without a
    /// reply, issues 64 and 72).
    public var drivesActivityOnly: Bool { self == .runStarted || self == .runProgress || self == .runEnded }

    /// Whether pushes show the device's count of unresolved approvals by default.
    public var showsBadgeByDefault: Bool { self == .approvalRequested }

    /// Whether an agent is held until its person answers (an approval, a question).
    public var waitsOnThePerson: Bool { self == .approvalRequested || self == .questionAsked }

    /// Whether every event of this type can be answered in words (issue 74); others
    /// only when their trigger says `answerable`.
    public var isAnswerableByDefault: Bool { self == .questionAsked }

    /// Whether an event of this type with an `event_id` is reminded until resolved.
    public var escalates: Bool { self == .approvalRequested }

    /// What `count` events of this type merged into one push say.
    public func summary(of count: Int) -> String {
        switch self {
        case .replyFinished: "\(count) replies ready"
        case .approvalRequested: "\(count) approvals needed"
        case .runCompleted: "\(count) runs completed"
        case .runFailed: "\(count) runs failed"
        case .runStarted: "\(count) runs started"
        case .runProgress: "\(count) steps"
        case .runEnded: "\(count) runs ended"
        case .questionAsked: "\(count) questions"
        case .custom(let name): "\(count) × \(name.replacingOccurrences(of: "_", with: " "))"
        }
    }
}
