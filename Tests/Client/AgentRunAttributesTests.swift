import Foundation
import PushgateLiveActivity
import Testing

/// The app's Live Activity types decode what the gateway sends (issue 64): the
/// documented content state (`Tests/fixtures/live-activity-content-state.json`, which
/// the gateway's own tests write too) and a start's attributes, with Foundation's
/// default decoder, as ActivityKit decodes them.
@Suite("Live Activity types")
struct AgentRunAttributesTests {
    @Test("the content state and the attributes decode as is")
    func decodes() throws {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("fixtures/live-activity-content-state.json")
        let state = try JSONDecoder().decode(AgentRunContentState.self, from: try Data(contentsOf: fixture))
        #expect(
            state
                == AgentRunContentState(
                    phase: .waitingForApproval, step: "running tests", toolsUsed: 14, startedAt: 1_795_323_872,
                    updatedAt: 1_795_324_051, preview: "May I run the migration?", details: ["files_changed": "3"]))
        #expect(state.startDate == Date(timeIntervalSince1970: 1_795_323_872))
        let bare = try JSONDecoder().decode(
            AgentRunContentState.self,
            from: Data(#"{"phase":"running","startedAt":1,"updatedAt":2,"details":{}}"#.utf8))
        #expect(bare.step == nil && bare.toolsUsed == nil && bare.preview == nil)

        let attributes = try JSONDecoder().decode(
            AgentRunAttributes.self, from: Data(#"{"agentName":"api@home","serverKey":"5e","agentKey":"a9"}"#.utf8))
        #expect(attributes == AgentRunAttributes(agentName: "api@home", serverKey: "5e", agentKey: "a9"))
        // What the app encodes reads back the same (ActivityKit round-trips it).
        #expect(try JSONDecoder().decode(AgentRunContentState.self, from: JSONEncoder().encode(state)) == state)
    }
}
