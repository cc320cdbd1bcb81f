import Foundation
import PushgateAgentHooks
import PushgateCore
import PushgateFunctions

/// One input of the hook fuzzer, read three ways: as a Claude Code hook event on
/// standard input, as Codex's notify argument, and as a transcript's tail (its last assistant text, the tools used
/// since its last prompt, its last tool call's id). What must hold: nothing traps; an
/// event that is read becomes a call the gateway accepts as it is (the function's own
/// request checks pass: `pushgate hook` never earns a 400 from its input); a
/// transcript's last assistant text, when there is one, is not empty.
public enum HookFuzzing {
    public static func check(_ bytes: [UInt8]) {
        let text = ClaudeTranscript.lastAssistantText(in: bytes)
        require(text.map { !$0.isEmpty } ?? true, "an empty assistant text was found")
        let tools = ClaudeTranscript.toolUsesSinceLastPrompt(in: bytes)
        require(tools.map { $0 >= 0 } ?? true, "a negative count of tools")
        let toolUseID = ClaudeTranscript.lastToolUseID(in: bytes)
        let now = Date(timeIntervalSince1970: 1_795_000_000)
        // The same bytes as Codex's notify argument: a finished turn's reply is one the gateway takes.
        if let turn = try? CodexNotification(json: bytes) {
            requireAccepted(turn.call(now: now), at: now)
        }
        // The same bytes as Claude Code's relayed permission request, and as a phone's
        // answer to questions with choices (issue 84): read or refused, never a trap.
        if let params = (try? JSONValue.parse(bytes))?.objectValue {
            _ = try? ChannelPermissionRequest(params: params)
        }
        guard let event = try? ClaudeHookEvent(json: bytes) else { return }
        if let choices = event.choices { _ = try? choices.read(String(decoding: bytes, as: UTF8.self)) }
        requireAccepted(
            event.call(now: now, transcriptText: { text }, toolsUsed: { tools }, lastToolUseID: { toolUseID }), at: now)
    }

    /// The call's own request checks pass on its body: the hook never earns a 400 from its input.
    private static func requireAccepted(_ call: GatewayCall, at now: Date) {
        let fields = RequestFields(call.body, receivedAt: now)
        do throws(FunctionError) {
            switch call.function {
            case .triggerReplyFinished: _ = try TriggerReplyFinishedRequest(fields: fields)
            default: _ = try TriggerEventRequest(fields: fields)
            }
        } catch {
            require(false, "\(call.function.rawValue) refuses what the hook sends: \(error) for \(call.body)")
        }
    }
}
