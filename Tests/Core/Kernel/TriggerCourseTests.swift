import Foundation
import PushgateCore
import Testing

@Suite("Trigger decision: one decision from the request and what it read")
struct TriggerCourseTests {
    typealias Plans = TriggerPlanTests

    static func decide(
        _ request: TriggerRequest, _ reads: TriggerReads, maxListed: Int = 2
    ) -> TriggerCourse {
        TriggerCourse(
            request, serverKey: Plans.server, agentKey: Plans.agent, after: reads, rules: Plans.rules(),
            maxListed: maxListed, now: Plans.now)
    }

    @Test("a server nobody registered with stores nothing, whatever else was read")
    func unknownServer() throws {
        let decision = Self.decide(
            Plans.request(.replyFinished), TriggerReads(serverExists: false, devices: try Plans.devices(["a1"])))
        guard case .unknownServer = decision else {
            Issue.record("\(decision)")
            return
        }
    }

    @Test("an event not newer than the last notified is stale, or a duplicate when its key was stored")
    func staleOrDuplicate() {
        let request = Plans.request(.replyFinished, key: "k", occurredAt: Plans.now)
        let stale = Self.decide(request, TriggerReads(serverExists: true, lastOccurredAt: Plans.now))
        guard case .stale = stale else {
            Issue.record("\(stale)")
            return
        }
        let repeated = Self.decide(
            request, TriggerReads(serverExists: true, lastOccurredAt: Plans.now, earlierNotificationID: "first"))
        guard case .duplicate(of: "first") = repeated else {
            Issue.record("\(repeated)")
            return
        }
        let newer = Self.decide(
            request, TriggerReads(serverExists: true, lastOccurredAt: Plans.now - 1, earlierNotificationID: "first"))
        guard case .whole = newer else {
            Issue.record("\(newer)")
            return
        }
    }

    @Test("the devices read are planned whole, the excluded installation's other tokens left out")
    func whole() throws {
        let reads = TriggerReads(
            serverExists: true, agentDisplayName: "Agent", deviceCount: 2, devices: try Plans.devices(["a1", "f2"]),
            excludedTokens: ["f2"])
        guard case .whole(let plan) = Self.decide(Plans.request(.replyFinished), reads) else {
            Issue.record("not whole")
            return
        }
        #expect(plan.deliveries.map(\.token.value) == ["a1"])
        #expect(plan.excludedCount == 1)
        #expect(plan.agentKey == Plans.agent && plan.type == .replyFinished)
    }

    @Test(
        "an agent of more devices than the answer lists is paged, its count as read; one read beyond a count pages too",
        arguments: [(counted: 3, read: 0), (counted: 2, read: 3)])
    func paged(counted: Int, read: Int) throws {
        var request = Plans.request(.replyFinished)
        request.selection.excludedInstallationID = "phone"
        let reads = TriggerReads(
            serverExists: true, deviceCount: counted,
            devices: try Plans.devices(Array(repeating: "a", count: read).enumerated().map { "a\($0.offset)" }),
            excludedTokens: ["a9"])
        guard case .paged(let plan, let expansion, let deviceCount) = Self.decide(request, reads) else {
            Issue.record("not paged")
            return
        }
        #expect(deviceCount == 3)
        #expect(plan.deliveries.isEmpty)
        #expect(expansion.notificationID == plan.notification.id && expansion.acceptedAt == Plans.now)
        #expect(expansion.selection.excludedTokens == ["a9"] && expansion.selection.excludedInstallationID == "phone")
    }

    @Test("devices not counted (an event that may not be paged) are planned whole, however many")
    func notCountedIsWhole() throws {
        let reads = TriggerReads(serverExists: true, devices: try Plans.devices(["a1", "a2", "a3"]))
        guard case .whole(let plan) = Self.decide(Plans.request(.replyFinished), reads) else {
            Issue.record("not whole")
            return
        }
        #expect(plan.deliveries.count == 3)
    }
}
