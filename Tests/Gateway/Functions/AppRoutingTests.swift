import Foundation
import Logging
import PushgateAPNs
import PushgateCore
import PushgateFCM
import PushgateInstalledServices
import PushgateMemory
import PushgateProviderKit
import PushgateTesting
import Testing

@testable import PushgateDelivery
@testable import PushgateFunctions

/// Several apps on one gateway: each device's push through its app's services, and a
/// registration naming an app the gateway does not serve refused.
@Suite("Apps: each device through its app's services")
struct AppRoutingTests {
    @Test(
        "each target to its app's provider, in one send per app and service; no app or an unknown one: the default app")
    func routing() async throws {
        let shop = ScriptedPushProvider(deliveryName: "apns")
        let chess = ScriptedPushProvider(outcomes: ["c2": .failed(reason: "TopicDisallowed")], deliveryName: "apns+fcm")
        let apps = try #require(ConfiguredApps(["com.example.shop", "com.example.chess"]))
        let provider = PushRoutingTable(
            routes: [
                ("com.example.shop", shop, PushServiceID.apns), ("com.example.shop", shop, .fcm),
                ("com.example.chess", chess, .apns), ("com.example.chess", chess, .fcm),
            ].map { app, provider, service in PushRoute(PushRoute.Key(app: app, service: service), provider: provider)
            },
            apps: apps, formats: .installed, logger: Logger(label: "test"))
        #expect(provider.deliveryName == "apns+fcm" && apps.ids == ["com.example.shop", "com.example.chess"])
        let targets = [
            DeliveryTarget(installationID: "s1", token: .apns("s1"), route: DeliveryRoute(app: "com.example.shop")),
            DeliveryTarget(installationID: "c1", token: .apns("c1"), route: DeliveryRoute(app: "com.example.chess")),
            DeliveryTarget(installationID: "n1", token: .fcm("n1")),
            DeliveryTarget(installationID: "c2", token: .apns("c2"), route: DeliveryRoute(app: "com.example.chess")),
            DeliveryTarget(installationID: "u1", token: .apns("u1"), route: DeliveryRoute(app: "com.gone.app")),
        ]
        let outcomes = await provider.send(
            PushNotification(title: "t", body: "b", data: [:], collapseID: "c"), to: targets)
        #expect(outcomes == [.delivered, .delivered, .delivered, .failed(reason: "TopicDisallowed"), .delivered])
        #expect(
            shop.sends.count == 2 && shop.sends.flatMap(\.targets).map(\.installationID).sorted() == ["n1", "s1", "u1"])
        #expect(chess.sends.count == 1 && chess.sends[0].targets.map(\.installationID) == ["c1", "c2"])
    }

    @Test("with apps configured, a bundle_id that names none is refused and stores nothing; none at all is fine")
    func registration() async throws {
        let fixture = try FunctionsFixture()
        var admission = AdmissionPolicy()
        admission.apps = ["com.example.shop"]
        let register = RegisterSubscriptionFunction(store: fixture.store, admission: admission, now: fixture.clock.now)
        func body(_ bundle: String?) -> RegisterSubscriptionRequest {
            var fields: [String: JSONValue] = ["cwd": "/srv/a", "installation_id": "p", "fcm_token": "fcm-token-0001"]
            fields["bundle_id"] = bundle.map(JSONValue.string)
            return try! RegisterSubscriptionRequest(fields: RequestFields(fields), formats: .installed)
        }
        await #expect {
            _ = try await register(secret: fixture.secret, body("com.other.app"))
        } throws: { error in
            (error as? FunctionError)?.field == "bundle_id" && !"\(error)".contains("com.example.shop")
        }
        #expect(await fixture.store.allDocuments().isEmpty)
        _ = try await register(secret: fixture.secret, body("com.example.shop"))
        _ = try await register(secret: fixture.secret, body(nil))
    }
}
