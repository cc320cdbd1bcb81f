import Foundation
import PushgateCore
import PushgateTesting
import Testing

/// Issue 73 across two gateway processes on one PostgreSQL database: a decision
/// taken by one wakes the hook waiting on the other, and two decisions arriving
/// through the two at the same instant are one taken and one told 409.
@Suite(
    "End to end: answering from the lock screen, two gateways on one PostgreSQL",
    .enabled(if: ScratchPostgresDatabase.serverURL != nil, "needs PUSHGATE_TEST_POSTGRES_URL (CI sets it)"))
struct DecisionsOnPostgresEndToEndTests {
    let helper: DecisionsEndToEndTests

    init() throws {
        helper = try DecisionsEndToEndTests()
    }

    @Test("the hook waits on one process, the phone decides through the other; a race of two phones has one winner")
    func acrossProcesses() async throws {
        let scratch = try await ScratchPostgresDatabase.create()
        let emulator = try await RunningEmulator(directory: helper.directory)
        defer { emulator.terminate() }
        async let startedFirst = RunningGateway(database: scratch.url, environment: emulator.settings)
        async let startedSecond = RunningGateway(database: scratch.url, environment: emulator.settings)
        let (first, second) = try await (startedFirst, startedSecond)
        defer {
            first.terminate()
            second.terminate()
        }
        let (phone, tablet) = try await (PhoneKey.make(), PhoneKey.make())
        try await helper.register(first, "phone", token: helper.phoneToken, key: phone)
        try await helper.register(first, "tablet", token: helper.tabletToken, key: tablet)
        try helper.pin(["phone": phone, "tablet": tablet])

        let hook = try WaitingHook(
            ["hook", "--decision-wait", "60", "--pins", helper.pins], environment: helper.environment(first),
            input: helper.permissionRequest("helm upgrade api"))
        defer { hook.kill() }
        let eventID = try await helper.approvalEventID(
            at: emulator, for: helper.phoneToken, body: "Run: helm upgrade api")
        let allowed = try await helper.decide(second, eventID, as: "phone", with: phone)
        #expect(allowed.status == 200, "\(allowed.body)")
        let result = try await hook.result(within: .seconds(30))
        #expect(
            try helper.output(result)
                == ["hookSpecificOutput": ["hookEventName": "PermissionRequest", "decision": ["behavior": "allow"]]],
            "\(result.stdout) \(result.stderr)")

        // Two phones at once, each through its own process: one decision, the other 409.
        let racing = try WaitingHook(
            ["hook", "--decision-wait", "60", "--pins", helper.pins], environment: helper.environment(first),
            input: helper.permissionRequest("helm rollback api"))
        defer { racing.kill() }
        let raced = try await helper.approvalEventID(
            at: emulator, for: helper.phoneToken, body: "Run: helm rollback api")
        async let byPhone = helper.decide(first, raced, as: "phone", with: phone, "allow")
        async let byTablet = helper.decide(second, raced, as: "tablet", with: tablet, "deny")
        let answers = try await [byPhone, byTablet]
        #expect(answers.map(\.status).sorted() == [200, 409], "\(answers.map(\.body))")
        let winner = try #require(answers.first { $0.status == 200 })
        let loser = try #require(answers.first { $0.status == 409 })
        let decision = try #require(winner.json["decision"]?.stringValue)
        let refusal = loser.json["error"]?.objectValue
        #expect(refusal?["reason"] == "already_decided", "\(loser.body)")
        #expect(refusal?["decision"]?.stringValue == decision, "the loser is told what was decided: \(loser.body)")
        let outcome = try await racing.result(within: .seconds(30))
        let printed = try helper.output(outcome)?.objectValue?["hookSpecificOutput"]?.objectValue?["decision"]
        #expect(printed?.objectValue?["behavior"]?.stringValue == decision, "the hook obeys the one taken: \(outcome)")
    }

    @Test("40 races of a decision through one process and a resolution through the other: one winner each")
    func decideVersusResolve() async throws {
        let scratch = try await ScratchPostgresDatabase.create()
        try await DecideResolveRaces(helper: helper).run(database: scratch.url)
    }
}
