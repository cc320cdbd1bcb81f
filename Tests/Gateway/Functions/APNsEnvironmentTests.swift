import Foundation
import PushgateAPNs
import PushgateCore
import PushgateInstalledServices
import PushgateMemory
import PushgateTesting
import Testing

@testable import PushgateFunctions

/// What the gateway keeps of a device's APNs environment: stated at registration, or
/// learned when a push refused `BadDeviceToken` in one environment is accepted in the
/// other (`APNsEnvironmentsTests` proves the sending against two emulators).
@Suite("APNs environment of a device: stated, learned, forgotten")
struct APNsEnvironmentTests {
    static let token = FunctionsFixture.apnsToken(0x5a)

    func device(_ fixture: FunctionsFixture, _ installation: String = "xcode", cwd: String = "/srv/a") async throws
        -> Document?
    {
        try await fixture.store.document(
            at: NamespacePaths.device(installation, of: AgentKey(cwd: cwd), of: fixture.serverKey))
    }

    @Test("a device refused in its default environment and taken in the other keeps it, and is not deleted")
    func learned() async throws {
        let fixture = try FunctionsFixture(outcomes: [Self.token: .deliveredIn(.sandbox)])
        for cwd in ["/srv/a", "/srv/b"] {
            _ = try await fixture.register([
                "cwd": .string(cwd), "installation_id": "xcode", "apns_token": .string(Self.token),
                "bundle_id": "com.example.app",
            ])
        }
        let answer = try await fixture.trigger(["cwd": "/srv/a", "message_preview": "done"])
        #expect(answer.successCount == 1 && answer.removedCount == 0)
        let response = try #require(answer.responses.first)
        #expect(response.apnsEnvironment == "sandbox" && response.app == "com.example.app")
        for cwd in ["/srv/a", "/srv/b"] {
            let stored = try #require(try await device(fixture, cwd: cwd), "\(cwd)")
            #expect(
                stored.fields[APNsEnvironment.declared.documentField] == "sandbox",
                "every registration of the token learns it")
            #expect(stored.fields[APNsEnvironment.declared.learnedField] == .bool(true))
        }
        // The next push goes straight to the sandbox, and may still fall back.
        _ = try await fixture.trigger(["cwd": "/srv/b", "message_preview": "again"])
        let route = try #require(fixture.provider.sends.last?.targets.first?.route)
        #expect(route == DeliveryRoute(app: "com.example.app", environment: .sandbox, environmentStated: false))
        #expect(route.mayFallBack)
    }

    @Test(
        "stated: kept until stated again; a learned one is dropped when stated, kept with its token, forgotten with it")
    func registration() async throws {
        let fixture = try FunctionsFixture()
        let body: [String: JSONValue] = [
            "cwd": "/srv/a", "installation_id": "xcode", "apns_token": .string(Self.token),
        ]
        var stated = body
        stated["apns_environment"] = "development"
        _ = try await fixture.register(stated)
        var stored = try #require(try await device(fixture))
        #expect(stored.fields[APNsEnvironment.declared.documentField] == "sandbox")
        #expect(DeviceRecord(document: stored, formats: .installed).route.environmentStated)
        _ = try await fixture.register(body)
        stored = try #require(try await device(fixture))
        #expect(
            stored.fields[APNsEnvironment.declared.documentField] == "sandbox", "the same token, nothing said: kept")

        // Learned, as the delivery worker writes it.
        _ = try await fixture.store.commit([
            .set(
                stored.path,
                [
                    APNsEnvironment.declared.documentField: .value("production"),
                    APNsEnvironment.declared.learnedField: .value(.bool(true)),
                ])
        ])
        _ = try await fixture.register(body)
        stored = try #require(try await device(fixture))
        #expect(
            DeviceRecord(document: stored, formats: .installed).route == DeliveryRoute(environment: .production))
        var otherToken = body
        otherToken["apns_token"] = .string(FunctionsFixture.apnsToken(0x77))
        _ = try await fixture.register(otherToken)
        stored = try #require(try await device(fixture))
        #expect(
            stored.fields[APNsEnvironment.declared.documentField] == nil
                && stored.fields[APNsEnvironment.declared.learnedField] == nil)

        var wrong = body
        wrong["apns_environment"] = "Sandbox"
        #expect(throws: FunctionError.self) {
            try RegisterSubscriptionRequest(fields: RequestFields(wrong), formats: .installed)
        }
    }
}
