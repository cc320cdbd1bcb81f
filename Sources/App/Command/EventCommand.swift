import ArgumentParser
import Foundation
import PushgateCore

struct EventCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "event",
        abstract: "Notify devices of an event (triggerEvent).",
        discussion: """
            Types: reply_finished, approval_requested (reminded until resolved, counted in badges), run_completed, \
            run_failed, or a custom name. --cwd names the agent; --all-agents reaches every device of every agent \
            instead (each phone once); --installation-id narrows either to one installation.
            """
    )

    @OptionGroup var gateway: GatewayCallOptions

    @Option(help: "The agent's working directory on its server.")
    var cwd: String?

    @Flag(help: "Every device of every agent of the server (scope server), each phone once; no --cwd.")
    var allAgents = false

    @Option(help: "Only this installation (under the agent, or under any with --all-agents).")
    var installationId: String?

    @Option(
        help:
            "reply_finished, approval_requested, question_asked, run_completed, run_failed, run_started, run_progress, run_ended, or a custom [a-z][a-z0-9_]* name."
    )
    var type: String

    @Option(help: "The title (default per type).")
    var title: String?

    @Option(help: "The preview text.")
    var body: String?

    @Option(name: .customLong("data"), help: "A custom key=value sent with the push (repeatable).")
    var data: [String] = []

    @Option(help: "The event's id: repeats are recognised, approvals resolved by it.")
    var eventId: String?

    @Option(help: "When it happened (RFC 3339); older events than the last notified are skipped.")
    var occurredAt: String?

    @Option(help: "increment or none.")
    var badge: String?

    @Option(help: "Groups notifications on the device.")
    var threadId: String?

    @Option(help: "passive, active or time-sensitive.")
    var interruptionLevel: String?

    @Option(help: "A deep link into the app.")
    var appUrl: String?

    @Option(help: "A web link.")
    var webUrl: String?

    @Flag(help: "A phone with a decision key may answer it in words (a question always may); see GET /replies.")
    var answerable = false

    @Flag(help: "Answer as soon as the gateway stored the notification (202).")
    var noWait = false

    @Option(help: "Seconds to wait for the answer.")
    var timeout: Double = 5

    func validate() throws {
        guard (cwd == nil) == allAgents else {
            throw ValidationError(allAgents ? "pass --cwd, or --all-agents, not both" : "pass --cwd or --all-agents")
        }
        for pair in data where !pair.contains("=") {
            throw ValidationError("--data takes key=value, not '\(pair)'")
        }
    }

    func run() async throws {
        var body: [String: JSONValue] = ["type": .string(type)]
        body["cwd"] = cwd.map(JSONValue.string)
        if allAgents { body["scope"] = "server" }
        body["installation_id"] = installationId.map(JSONValue.string)
        body["title"] = title.map(JSONValue.string)
        body["body"] = self.body.map(JSONValue.string)
        if !data.isEmpty {
            var object: [String: JSONValue] = [:]
            for pair in data {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                object[String(parts[0])] = .string(parts.count > 1 ? String(parts[1]) : "")
            }
            body["data"] = .object(object)
        }
        body["event_id"] = eventId.map(JSONValue.string)
        body["occurred_at"] = occurredAt.map(JSONValue.string)
        body["badge"] = badge.map(JSONValue.string)
        body["thread_id"] = threadId.map(JSONValue.string)
        body["interruption_level"] = interruptionLevel.map(JSONValue.string)
        body["app_url"] = appUrl.map(JSONValue.string)
        body["web_url"] = webUrl.map(JSONValue.string)
        if noWait { body["wait"] = false }
        if answerable { body["answerable"] = true }
        try await gateway.client(timeout: timeout).call("triggerEvent", body: body)
    }
}
