import Foundation
import PushgateCore
import Testing

@Suite("Urgency per event type: one table, rows changed by a setting")
struct EventUrgenciesTests {
    static func push(_ type: String, level: String? = nil) -> PushNotification {
        PushNotification(
            title: "t", body: "b", data: ["type": .string(type)], collapseID: "c", interruptionLevel: level)
    }

    @Test("the defaults: approvals and questions time-sensitive and high, the rest active, ordered by score")
    func defaults() {
        let table = EventUrgencies.defaults
        let approval = table.applied(to: Self.push("approval_requested"))
        #expect(approval.interruptionLevel == "time-sensitive" && approval.relevanceScore == 1)
        #expect(approval.urgency == .high)
        let reply = table.applied(to: Self.push("reply_finished"))
        #expect(reply.interruptionLevel == nil, "active is APNs's default: not written")
        #expect(reply.relevanceScore == 0.7 && reply.urgency == .normal)
        let scores = [
            "approval_requested", "question_asked", "run_failed", "reply_finished", "waiting_for_input",
            "run_completed", "deploy_done",
        ].map { table.urgency(of: $0).relevanceScore }
        #expect(scores == scores.sorted(by: >), "what waits on the person first")
    }

    @Test("a caller's level wins; a passive one plays no sound; badge updates and activities are left alone")
    func callerAndSilent() throws {
        let table = try EventUrgencies.reading("reply_finished=passive/0.3/low").get()
        let own = table.applied(to: Self.push("reply_finished", level: "time-sensitive"))
        #expect(own.interruptionLevel == "time-sensitive" && own.sound == "default")
        let quiet = table.applied(to: Self.push("reply_finished"))
        #expect(quiet.interruptionLevel == "passive" && quiet.sound == "" && quiet.urgency == .low)
        #expect(quiet.relevanceScore == 0.3)
        let badge = PushNotification.badgeUpdate(serverKey: "k")
        #expect(table.applied(to: badge) == badge)
    }

    @Test(
        "rows that do not read are refused whole, naming the row",
        arguments: [
            "reply_finished=loud/0.3/low", "reply_finished=passive/1.5/low", "reply_finished=passive/0.3/soon",
            "reply_finished=passive/0.3", "run_progress=passive/0.3/low", "Bad-Type=passive/0.3/low",
            "reply_finished", "reply_finished=passive/nan/low",
        ])
    func refused(_ text: String) {
        guard case .failure(let problem) = EventUrgencies.reading(text) else {
            Issue.record("'\(text)' was taken")
            return
        }
        #expect(problem.text.contains("type=level/score/urgency") && problem.text.contains(String(text.prefix(20))))
    }

    @Test("rows given replace theirs; the others stay; blank is the defaults")
    func changes() throws {
        let table = try EventUrgencies.reading(" deploy_done=time-sensitive/0.95/high , run_failed=active/0.2/low")
            .get()
        #expect(table.urgency(of: "deploy_done") == .init("time-sensitive", 0.95, .high))
        #expect(table.urgency(of: "run_failed") == .init("active", 0.2, .low))
        #expect(table.urgency(of: "approval_requested") == EventUrgencies.defaults.urgency(of: "approval_requested"))
        #expect(try EventUrgencies.reading("").get() == .defaults)
    }
}
