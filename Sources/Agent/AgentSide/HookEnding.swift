import PushgateAgentHooks

/// What a hook run ends with: what it prints for the agent (nothing when `nil`), and
/// its one line for standard error.
public struct HookEnding: Sendable, Equatable {
    public let output: HookOutput?
    public let line: String

    public init(output: HookOutput? = nil, line: String) {
        self.output = output
        self.line = line
    }
}
