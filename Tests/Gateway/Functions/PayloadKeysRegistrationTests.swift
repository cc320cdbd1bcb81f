import Foundation
import PushgateCore
import PushgateFunctions
import PushgateInstalledServices
import PushgateMemory
import PushgateTesting
import Testing

/// `registerSubscription` with `payload_keys` (issue 63): stored, kept through a
/// token change, replaced and spread like a token, refused when they are not keys,
/// required by a sealed-only app; and the fan-out seals for them.
@Suite("Payload keys")
struct PayloadKeysRegistrationTests {
    /// RFC 8291 Appendix A's receiver keys, and a second pair.
    static let keys: JSONValue = [
        "p256dh": "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4",
        "auth": "BTBZMqHH6r4Tts7J_aSIgg",
    ]
    static let otherKeys: JSONValue = [
        "p256dh": "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8",
        "auth": "AAAAAAAAAAAAAAAAAAAAAA",
    ]

    static func body(cwd: String, token: String = "fcm-token-1", keys: JSONValue? = Self.keys) -> [String: JSONValue] {
        var body: [String: JSONValue] = ["cwd": .string(cwd), "installation_id": "phone", "fcm_token": .string(token)]
        body["payload_keys"] = keys
        return body
    }

    func storedKeys(_ fixture: FunctionsFixture, cwd: String) async throws -> JSONValue? {
        try await fixture.store.document(at: fixture.device("phone", cwd: cwd))?.fields[FieldName.payloadKeys]
    }

    @Test("stored as given; absent keeps them, a token change keeps them; new keys replace them under every agent")
    func storedKeptReplaced() async throws {
        let fixture = try FunctionsFixture()
        _ = try await fixture.register(Self.body(cwd: "/a"))
        _ = try await fixture.register(Self.body(cwd: "/b", keys: nil))
        #expect(try await storedKeys(fixture, cwd: "/a") == Self.keys)
        #expect(try await storedKeys(fixture, cwd: "/b") == nil, "registered under /b without keys")

        _ = try await fixture.register(Self.body(cwd: "/a", keys: nil))
        #expect(try await storedKeys(fixture, cwd: "/a") == Self.keys, "absent: kept")
        _ = try await fixture.register(Self.body(cwd: "/a", token: "fcm-token-2", keys: nil))
        #expect(try await storedKeys(fixture, cwd: "/a") == Self.keys, "a token change keeps them")

        #expect(try await !fixture.register(Self.body(cwd: "/a", token: "fcm-token-2", keys: Self.otherKeys)).created)
        for cwd in ["/a", "/b"] {
            #expect(try await storedKeys(fixture, cwd: cwd) == Self.otherKeys, "\(cwd): spread like a token")
        }
    }

    @Test(
        "keys that are not keys: 400 naming the member, nothing stored",
        arguments: [
            ("not an object", "payload_keys"),
            (["p256dh": "BCVx"], "payload_keys"),
            (["p256dh": .number(1), "auth": "BTBZMqHH6r4Tts7J_aSIgg"], "payload_keys"),
            (["p256dh": "BCVxsr7N_eNgVRqvHtD0zTZsEc6", "auth": "BTBZMqHH6r4Tts7J_aSIgg"], "payload_keys.p256dh"),
            (
                [
                    "p256dh": "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4",
                    "auth": "BTBZMqHH6r4Tts7J_aSI",
                ], "payload_keys.auth"
            ),
        ] as [(JSONValue, String)]
    )
    func refused(keys: JSONValue, field: String) async throws {
        let fixture = try FunctionsFixture()
        await #expect {
            _ = try await fixture.register(Self.body(cwd: "/a", keys: keys))
        } throws: { error in
            (error as? FunctionError)?.code == .invalidArgument && (error as? FunctionError)?.field == field
        }
        #expect(try await fixture.store.allDocuments().isEmpty)
    }

    @Test("a sealed-only app refuses an APNs or FCM token without keys, takes Web Push and other apps without")
    func sealedOnly() async throws {
        let fixture = try FunctionsFixture()
        var admission = AdmissionPolicy()
        admission.apps = ["com.example.sealed", "com.example.open"]
        admission.sealedOnlyApps = ["com.example.sealed"]
        var sealedApp = Self.body(cwd: "/a", keys: nil)
        sealedApp["bundle_id"] = "com.example.sealed"
        await #expect {
            _ = try await fixture.register(sealedApp, admission: admission)
        } throws: { error in
            let error = error as? FunctionError
            return error?.field == "payload_keys" && error?.message.contains("sealed only") == true
        }
        #expect(try await fixture.store.allDocuments().isEmpty)
        sealedApp["payload_keys"] = Self.keys
        #expect(try await fixture.register(sealedApp, admission: admission).created)

        var openApp = Self.body(cwd: "/a", keys: nil)
        openApp["installation_id"] = "other-phone"
        openApp["bundle_id"] = "com.example.open"
        #expect(try await fixture.register(openApp, admission: admission).created)

        admission.sealedOnlyByDefault = true
        openApp["bundle_id"] = nil
        await #expect(throws: FunctionError.self) { try await fixture.register(openApp, admission: admission) }
        let browser: [String: JSONValue] = [
            "cwd": "/a", "installation_id": "browser", "platform": "web",
            "webpush": ["endpoint": "https://push.example/x", "keys": Self.keys],
        ]
        #expect(try await fixture.register(browser, admission: admission).created, "Web Push seals itself")
    }

    @Test("diagnostics say which devices are sealed, never their keys")
    func diagnostics() async throws {
        let fixture = try FunctionsFixture()
        _ = try await fixture.register(Self.body(cwd: "/a"))
        _ = try await fixture.register(["cwd": "/a", "installation_id": "clear", "fcm_token": "fcm-token-clear"])
        let function = DiagnosticsFunction(
            store: fixture.store, outbox: fixture.outbox, formats: .installed, now: fixture.clock.now)
        let answer = try await function(
            secret: fixture.secret, DiagnosticsRequest(installationID: nil, agentKey: AgentKey(cwd: "/a").hex))
        let devices = try #require(answer.objectValue?["devices"]?.arrayValue).compactMap(\.objectValue)
        #expect(devices.first { $0["installation_id"] == "phone" }?["sealed"] == true)
        #expect(devices.first { $0["installation_id"] == "clear" }?["sealed"] == nil)
        #expect(!String(decoding: try answer.encodedData(), as: UTF8.self).contains("BTBZMqHH6r4Tts7J"))
    }

    @Test("the fan-out hands each device its sealing: keys for an FCM device with them, none for a browser")
    func fanOutSealing() async throws {
        let fixture = try FunctionsFixture()
        _ = try await fixture.register(Self.body(cwd: "/a"))
        _ = try await fixture.register([
            "cwd": "/a", "installation_id": "browser", "platform": "web", "payload_keys": Self.keys,
            "webpush": ["endpoint": "https://push.example/x", "keys": Self.keys],
        ])
        _ = try await fixture.trigger(["cwd": "/a", "message": "hello"])
        let targets = fixture.provider.sends.flatMap(\.targets)
        let phone = try #require(targets.first { $0.installationID == "phone" })
        guard case .sealed(let keys)? = phone.route.sealing else {
            Issue.record("the phone's push is sealed: \(phone.route)")
            return
        }
        #expect(PayloadSealing.field(keys) == Self.keys)
        #expect(targets.first { $0.installationID == "browser" }?.route.sealing == nil)
    }
}
