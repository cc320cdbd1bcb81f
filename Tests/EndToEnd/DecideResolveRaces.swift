import Crypto
import Foundation
import PushgateCore
import PushgateSealing
import PushgateTesting
import Testing

/// Issue 82's one winner through real processes: an approval decided through one
/// gateway while another resolves it, 40 times, each with exactly one winner — the
/// decision (the resolution answered 409 `already_decided`, naming it) or the
/// resolution (the decision answered 409 `already_resolved`, naming it) — and the
/// record saying the same.
struct DecideResolveRaces {
    let helper: DecisionsEndToEndTests
    static let rounds = 40

    func run(database: String) async throws {
        let emulator = try await RunningEmulator(directory: helper.directory)
        defer { emulator.terminate() }
        // One after the other: the second finds the store migrated.
        let first = try await RunningGateway(database: database, environment: emulator.settings)
        let second: RunningGateway
        do {
            second = try await RunningGateway(database: database, environment: emulator.settings)
        } catch {
            first.terminate()
            throw error
        }
        defer {
            first.terminate()
            second.terminate()
        }
        let key = P256.Signing.PrivateKey()
        let publicKey = Base64URL.encode(key.publicKey.x963Representation)
        let register =
            #"{"cwd": "\#(helper.cwd)", "installation_id": "phone", "apns_token": "\#(helper.phoneToken)", "decision_key": "\#(publicKey)"}"#
        #expect(try await helper.call(first, "registerSubscription", register).status == 200)
        var winners: [String: Int] = [:]
        // Eight races at a time: the machine stays busy, every call prompt.
        for batch in stride(from: 0, to: Self.rounds, by: 8) {
            try await withThrowingTaskGroup(of: String.self) { group in
                for round in batch..<min(batch + 8, Self.rounds) {
                    group.addTask { try await race(round, key: key, first: first, second: second) }
                }
                for try await winner in group { winners[winner, default: 0] += 1 }
            }
        }
        #expect(
            winners.values.reduce(0, +) == Self.rounds && winners["both"] == nil && winners["none"] == nil, "\(winners)"
        )
        print("decide versus resolve, \(Self.rounds) races: \(winners)")
    }

    /// One race: who won, `decision` or `resolution` (`both` or `none` if the rule broke).
    private func race(_ round: Int, key: P256.Signing.PrivateKey, first: RunningGateway, second: RunningGateway)
        async throws -> String
    {
        let eventID = "race-\(round)-" + UUID().uuidString
        let trigger =
            #"{"cwd": "\#(helper.cwd)", "type": "approval_requested", "event_id": "\#(eventID)", "wait": false}"#
        let triggered = try await helper.call(first, "triggerEvent", trigger)
        #expect(triggered.status == 202 || triggered.status == 200, "\(triggered.body)")
        let signed = try SignedDecision.sign(
            with: key, serverKey: helper.secret.serverKey.hex, eventID: eventID, installationID: "phone",
            decision: .allow, signedAt: Int64(Date().timeIntervalSince1970), message: nil)
        let decide =
            #"{"event_id": "\#(eventID)", "installation_id": "phone", "decision": "allow", "signed_at": \#(signed.signedAt), "signature": "\#(signed.signature)"}"#
        let resolve = #"{"event_id": "\#(eventID)", "resolution": "expired"}"#
        // Stored with its delivery to the phone in one write (202): the phone may decide from now on.
        async let decided = helper.call(first, "decideEvent", decide)
        async let resolved = helper.call(second, "resolveEvent", resolve)
        let (decision, resolution) = try await (decided, resolved)
        let decisionWon = decision.status == 200
        let resolutionWon = resolution.status == 200 && resolution.json["already_resolved"] == false
        let awaited = try await helper.call(first, "awaitDecision", #"{"event_id": "\#(eventID)", "wait": 0}"#)
        switch (decisionWon, resolutionWon) {
        case (true, false):
            #expect(resolution.status == 409 && resolution.body.contains("already_decided"), "\(resolution.body)")
            #expect(awaited.json["decided"] == true && awaited.json["decision"] == "allow", "\(awaited.body)")
            return "decision"
        case (false, true):
            #expect(decision.status == 409 && decision.body.contains("already_resolved"), "\(decision.body)")
            #expect(awaited.json["decided"] == false && awaited.json["resolution"] == "expired", "\(awaited.body)")
            return "resolution"
        case (true, true):
            Issue.record("round \(round): both won: \(decision.body) \(resolution.body)")
            return "both"
        case (false, false):
            Issue.record("round \(round): nobody won: \(decision.body) \(resolution.body)")
            return "none"
        }
    }
}
