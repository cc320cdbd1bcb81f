import Foundation
import PushgateCore
import PushgateFunctions
import PushgateMemory
import Testing

/// `registerSubscription` with a Web Push subscription: an update when it is the same,
/// a rotation under every agent when its endpoint changes, and nothing stored when
/// it is refused.
@Suite("Web Push registrations")
struct WebPushRegistrationTests {
    static let keys: JSONValue = [
        "p256dh": "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4",
        "auth": "BTBZMqHH6r4Tts7J_aSIgg",
    ]

    static func body(cwd: String, endpoint: String) -> [String: JSONValue] {
        [
            "cwd": .string(cwd), "installation_id": "browser", "platform": "web",
            "webpush": ["endpoint": .string(endpoint), "keys": keys, "expirationTime": .null],
        ]
    }

    @Test("the same subscription again is an update; a new endpoint replaces the old under every agent")
    func rotation() async throws {
        let fixture = try FunctionsFixture()
        let old = "https://updates.push.services.mozilla.com/wpush/v2/old"
        let new = "https://updates.push.services.mozilla.com/wpush/v2/new"
        for cwd in ["/a", "/b"] {
            #expect(try await fixture.register(Self.body(cwd: cwd, endpoint: old)).created)
        }
        #expect(try await !fixture.register(Self.body(cwd: "/a", endpoint: old)).created, "an update")
        #expect(try await fixture.store.allDocuments().filter { $0.path.rawValue.contains("/devices/") }.count == 2)

        _ = try await fixture.register(Self.body(cwd: "/a", endpoint: new))
        for cwd in ["/a", "/b"] {
            let stored = try await fixture.store.document(at: fixture.device("browser", cwd: cwd))?.string(
                "webpushToken")
            #expect(stored?.contains(#""endpoint":"\#(new)""#) == true, "\(cwd): \(stored ?? "none")")
            #expect(stored?.contains("old") == false)
        }
    }

    @Test("a refused subscription stores nothing; a token of another service replaces a subscription")
    func refusedAndReplaced() async throws {
        let fixture = try FunctionsFixture()
        await #expect(throws: FunctionError.self) {
            try await fixture.register(Self.body(cwd: "/a", endpoint: "https://10.0.0.1/push"))
        }
        #expect(try await fixture.store.allDocuments().isEmpty)

        _ = try await fixture.register(Self.body(cwd: "/a", endpoint: "https://push.example/x"))
        _ = try await fixture.register([
            "cwd": "/a", "installation_id": "browser", "fcm_token": "fcm-token-after-the-browser",
        ])
        let device = try await fixture.store.document(at: fixture.device("browser", cwd: "/a"))
        #expect(device?.string("webpushToken") == nil && device?.string("fcmToken") == "fcm-token-after-the-browser")
    }
}
