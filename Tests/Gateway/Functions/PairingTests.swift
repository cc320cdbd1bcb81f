import Crypto
import Foundation
import PushgateCore
import PushgateMemory
import PushgateSealing
import PushgateTesting
import Testing

@testable import PushgateFunctions

/// The gateway's half of pairing (issue 82): it opens a pairing, keeps each phone's
/// completion — which it cannot check, never seeing the code — and hands them to the
/// agent's machine that waits.
@Suite("Pairing at the gateway")
struct PairingTests {
    let phoneKey = P256.Signing.PrivateKey()

    func register(_ fixture: FunctionsFixture, _ id: String, key: P256.Signing.PrivateKey?, name: String? = nil)
        async throws
    {
        var body: [String: JSONValue] = [
            "cwd": "/srv/a", "installation_id": .string(id),
            "apns_token": .string(FunctionsFixture.apnsToken(id.count)),
        ]
        body["decision_key"] = key.map { .string(Base64URL.encode($0.publicKey.x963Representation)) }
        body["device_name"] = name.map(JSONValue.string)
        _ = try await fixture.register(body)
    }

    func start(_ fixture: FunctionsFixture, wait: Int = 600) async throws -> StartPairingFunction.Answer {
        try await StartPairingFunction(store: fixture.store, now: fixture.clock.now)(
            secret: fixture.secret, StartPairingRequest(fields: RequestFields(["wait": .number(Double(wait))])))
    }

    func complete(
        _ fixture: FunctionsFixture, _ pairingID: String, as installation: String, key: P256.Signing.PrivateKey,
        waits: DecisionWaits, signedAt: Date? = nil
    ) async throws {
        let signed = try SignedPairing.sign(
            code: PairingCode(typed: "7KQ2-M9XD-4TRB")!, serverKey: fixture.serverKey.hex, pairingID: pairingID,
            installationID: installation, signedAt: Int64((signedAt ?? fixture.clock.now()).timeIntervalSince1970)
        ) { try key.signature(for: $0).rawRepresentation }
        _ = try await CompletePairingFunction(store: fixture.store, waits: waits, now: fixture.clock.now)(
            secret: fixture.secret,
            CompletePairingRequest(
                fields: RequestFields([
                    "pairing_id": .string(pairingID), "installation_id": .string(installation),
                    "signed_at": .number(Double(signed.signedAt)), "signature": .string(signed.signature),
                ])))
    }

    func awaitPairing(_ fixture: FunctionsFixture, _ pairingID: String, waits: DecisionWaits, wait: Int, seen: Int = 0)
        async throws -> JSONValue
    {
        try await AwaitPairingFunction(store: fixture.store, waits: waits, now: fixture.clock.now)(
            secret: fixture.secret,
            AwaitPairingRequest(
                fields: RequestFields([
                    "pairing_id": .string(pairingID), "wait": .number(Double(wait)), "seen": .number(Double(seen)),
                ]))
        ).json
    }

    func refusal(_ call: () async throws -> some Any) async -> FunctionError? {
        do {
            _ = try await call()
            return nil
        } catch {
            return error as? FunctionError
        }
    }

    @Test(
        "a completion wakes the waiting machine with the phone's key and name; a phone completing again replaces its own"
    )
    func completed() async throws {
        let fixture = try FunctionsFixture()
        try await register(fixture, "phone", key: phoneKey, name: "Ana's iPhone")
        let waits = DecisionWaits(store: fixture.store, feed: nil, limitPerNamespace: 10)
        let opened = try await start(fixture)
        #expect(
            opened.pairingID.count == 32
                && opened.expiresAt == RFC3339.format(fixture.clock.now().addingTimeInterval(600)))
        let waiting = Task { try await awaitPairing(fixture, opened.pairingID, waits: waits, wait: 60) }
        try await waitUntil("the wait is held", within: .seconds(10)) { waits.count == 1 }
        try await complete(fixture, opened.pairingID, as: "phone", key: phoneKey, waits: waits)
        let completions = try #require(try await waiting.value.objectValue?["completions"]?.arrayValue)
        #expect(completions.count == 1)
        let completion = try #require(completions.first?.objectValue)
        #expect(completion["installation_id"] == "phone" && completion["device_name"] == "Ana's iPhone")
        #expect(completion["decision_key"] == .string(Base64URL.encode(phoneKey.publicKey.x963Representation)))
        try await complete(fixture, opened.pairingID, as: "phone", key: phoneKey, waits: waits)
        let again = try await awaitPairing(fixture, opened.pairingID, waits: waits, wait: 0)
        #expect(again.objectValue?["completions"]?.arrayValue?.count == 1, "replaced, not added")
    }

    @Test(
        "refused, nothing kept: an unknown or expired pairing 404 unknown_pairing, a phone without a decision key 403, a stale signature 400; at most 10 open a server, 10 completions a pairing"
    )
    func refusals() async throws {
        let fixture = try FunctionsFixture()
        let waits = DecisionWaits(store: fixture.store, feed: nil, limitPerNamespace: 10)
        #expect(await refusal { try await start(fixture) }?.reason == "unknown_server", "nobody registered yet")
        try await register(fixture, "phone", key: phoneKey)
        try await register(fixture, "old-phone", key: nil)
        let opened = try await start(fixture, wait: 60)
        let unknown = await refusal {
            try await complete(fixture, String(repeating: "0", count: 32), as: "phone", key: phoneKey, waits: waits)
        }
        #expect(unknown?.code == .notFound && unknown?.reason == "unknown_pairing")
        let keyless = await refusal {
            try await complete(fixture, opened.pairingID, as: "old-phone", key: phoneKey, waits: waits)
        }
        #expect(keyless?.code == .permissionDenied && keyless?.reason == "no_decision_key")
        let stale = await refusal {
            try await complete(
                fixture, opened.pairingID, as: "phone", key: phoneKey, waits: waits,
                signedAt: fixture.clock.now().addingTimeInterval(-301))
        }
        #expect(stale?.code == .invalidArgument && stale?.reason == "stale")
        for bad in ["", "XYZ", String(repeating: "A", count: 32)] {
            #expect(throws: FunctionError.self) {
                try CompletePairingRequest(
                    fields: RequestFields([
                        "pairing_id": .string(bad), "installation_id": "phone", "signed_at": 1, "signature": "x",
                    ]))
            }
        }
        #expect(
            try await awaitPairing(fixture, opened.pairingID, waits: waits, wait: 0).objectValue?["completions"] == [])

        // Ten completions, the eleventh refused.
        for n in 0..<10 {
            let key = P256.Signing.PrivateKey()
            try await register(fixture, "phone-\(n)", key: key)
            try await complete(fixture, opened.pairingID, as: "phone-\(n)", key: key, waits: waits)
        }
        let full = await refusal {
            try await complete(fixture, opened.pairingID, as: "phone", key: phoneKey, waits: waits)
        }
        #expect(full?.code == .limitReached)

        // Expired: 404 to every call, and the sweep deletes it.
        fixture.clock.advance(by: 61)
        let expired = await refusal { try await awaitPairing(fixture, opened.pairingID, waits: waits, wait: 0) }
        #expect(expired?.reason == "unknown_pairing")
        #expect(try await PairingRecord.removeExpired(in: fixture.store, at: fixture.clock.now()) == 1)

        // Ten open at once; an eleventh waits for one to end.
        for _ in 0..<StartPairingFunction.maxOpen { _ = try await start(fixture) }
        #expect(await refusal { try await start(fixture) }?.code == .limitReached)
        fixture.clock.advance(by: 601)
        _ = try await start(fixture)
    }
}
