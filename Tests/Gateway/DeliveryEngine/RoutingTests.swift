import AsyncAlgorithms
import Foundation
import Logging
import NIOConcurrencyHelpers
import PushgateAPNs
import PushgateCore
import PushgateFCM
import PushgateInstalledServices
import PushgateProviderKit
import PushgateTesting
import Testing

@testable import PushgateDelivery

/// Each device to the push service of its token; one service's trouble stays its own.
@Suite("Routing devices to push services")
struct RoutingTests {
    let notification = PushNotification(
        title: "Agent", body: "Done.", data: ["type": "reply_finished"], collapseID: "c")

    static func targets(apns: Int, fcm: Int) -> [DeliveryTarget] {
        // Interleaved, as an agent's devices come out of the store.
        (0..<max(apns, fcm)).flatMap { n in
            (n < apns ? [DeliveryTarget(installationID: "a\(n)", token: .apns(String(format: "%064x", n)))] : [])
                + (n < fcm ? [DeliveryTarget(installationID: "f\(n)", token: .fcm("fcm-token-\(n)"))] : [])
        }
    }

    @Test("APNs tokens go to APNs, FCM tokens to FCM, answers in the targets' order")
    func routesByKind() async {
        let apns = ScriptedPushProvider(deliveryName: "apns")
        let fcm = ScriptedPushProvider(
            outcomes: ["fcm-token-1": .tokenInvalid(reason: "UNREGISTERED")], deliveryName: "fcm")
        let routing = PushRoutingTable.services([.apns: apns, .fcm: fcm])
        let targets = Self.targets(apns: 2, fcm: 2)
        let outcomes = await routing.send(notification, to: targets)
        #expect(outcomes == [.delivered, .delivered, .delivered, .tokenInvalid(reason: "UNREGISTERED")])
        #expect(apns.sends.flatMap(\.targets).map(\.installationID) == ["a0", "a1"])
        #expect(fcm.sends.flatMap(\.targets).map(\.installationID) == ["f0", "f1"])
        #expect(routing.deliveryName == "apns+fcm")
    }

    @Test("a service not configured fails its devices with a clear reason; the other service still delivers")
    func missingService() async {
        let apns = ScriptedPushProvider(deliveryName: "apns")
        let onlyAPNs = PushRoutingTable.services([.apns: apns])
        #expect(
            await onlyAPNs.send(notification, to: Self.targets(apns: 1, fcm: 1)) == [
                .delivered, .failed(reason: "no_fcm_provider"),
            ])
        let fcm = ScriptedPushProvider(deliveryName: "fcm")
        let onlyFCM = PushRoutingTable.services([.fcm: fcm])
        #expect(
            await onlyFCM.send(notification, to: Self.targets(apns: 1, fcm: 1)) == [
                .failed(reason: "no_apns_provider"), .delivered,
            ])
        #expect(onlyFCM.deliveryName == "fcm")
        #expect(onlyFCM.reasons.isSuperset(of: ["no_apns_provider", "no_fcm_provider"]))
    }

    @Test("log mode: each push is logged with the service it would have used, and fails")
    func logMode() async {
        let lines = LogLines()
        let logger = Logger(label: "test") { _ in lines }
        let routing = PushRoutingTable.services([:], logger: logger)
        #expect(routing.deliveryName == "log")
        let outcomes = await routing.send(notification, to: Self.targets(apns: 1, fcm: 1))
        #expect(outcomes == [.failed(reason: "no_apns_provider"), .failed(reason: "no_fcm_provider")])
        #expect(
            lines.all.sorted() == [
                #"push to apns:00000000… not sent, no APNs provider (PUSHGATE_APNS_KEY_PATH): installation=a0 title="Agent" body="Done.""#,
                #"push to fcm:fcm-toke… not sent, no FCM provider (PUSHGATE_FCM_CREDENTIALS): installation=f0 title="Agent" body="Done.""#,
            ])
    }

    @Test("health: the first service that refuses the configuration, named")
    func health() {
        let since = Date(timeIntervalSince1970: 0)
        let fcm = ScriptedPushProvider(
            deliveryName: "fcm", health: .degraded(provider: "fcm", reason: "THIRD_PARTY_AUTH_ERROR", since: since))
        let routing = PushRoutingTable.services([.apns: ScriptedPushProvider(deliveryName: "apns"), .fcm: fcm])
        #expect(routing.health == .degraded(provider: "fcm", reason: "THIRD_PARTY_AUTH_ERROR", since: since))
    }

    @Test("a fan-out sends chunks of one service each, the services taking turns")
    func chunksByKind() async {
        let provider = ScriptedPushProvider()
        let outcomes = await FanOut(chunkSize: 2, maxConcurrentChunks: 1).heard(
            notification, to: Self.targets(apns: 5, fcm: 3), via: provider
        ).outcomes
        #expect(outcomes.count == 8 && outcomes.allSatisfy(\.isDelivered))
        #expect(
            provider.sends.map { $0.targets.map(\.installationID) } == [
                ["a0", "a1"], ["f0", "f1"], ["a2", "a3"], ["f2"], ["a4"],
            ])
    }

    @Test("a fan-out cancelled before it starts sends nothing and answers at once, each device NotSent")
    func cancelledBeforeStart() async {
        let provider = ScriptedPushProvider()
        let targets = Self.targets(apns: 9, fcm: 0)
        let fanOut = Task {
            // Cancelled before its first chunk may start (more chunks than may run at once).
            withUnsafeCurrentTask { $0?.cancel() }
            return await FanOut(chunkSize: 1, maxConcurrentChunks: 2).heard(notification, to: targets, via: provider)
                .outcomes
        }
        // It once spun for ever instead: waited for against a generous bound, so that a
        // return of that bug fails here instead of hanging the suite.
        let outcomes: [DeliveryOutcome]? = await withCheckedContinuation { continuation in
            let resumed = NIOLockedValueBox(false)
            let finish: @Sendable ([DeliveryOutcome]?) -> Void = { value in
                let first = resumed.withLockedValue { done in
                    defer { done = true }
                    return !done
                }
                if first { continuation.resume(returning: value) }
            }
            Task { finish(await fanOut.value) }
            Task {
                try? await Task.sleep(for: .seconds(30))
                finish(nil)
            }
        }
        let answered = try? #require(outcomes, "the cancelled fan-out did not return")
        #expect(answered?.count == 9)
        #expect(answered?.allSatisfy { $0.reason == "NotSent" } == true, "\(answered ?? [])")
        #expect(provider.sends.isEmpty)
    }

    @Test("a configuration error stops that service's chunks only; the other service's devices are still sent")
    func configurationErrorStopsOneService() async {
        let fcm = ScriptedPushProvider(
            outcomes: ["fcm-token-0": .configurationError(reason: "THIRD_PARTY_AUTH_ERROR")], deliveryName: "fcm")
        let apns = ScriptedPushProvider(deliveryName: "apns")
        let routing = PushRoutingTable.services([.apns: apns, .fcm: fcm])
        let targets = Self.targets(apns: 6, fcm: 6)
        let (outcomes, heard) = await FanOut(chunkSize: 2, maxConcurrentChunks: 1).heard(
            notification, to: targets, via: routing)
        #expect(apns.sends.flatMap(\.targets).count == 6, "every APNs device was sent")
        #expect(fcm.sends.count == 1, "FCM's later chunks were not sent")
        for (target, outcome) in zip(targets, outcomes) {
            if target.token.kind == .apns {
                #expect(outcome == .delivered)
            } else if target.installationID != "f1" {
                #expect(outcome == .configurationError(reason: "THIRD_PARTY_AUTH_ERROR"))
            }
        }
        #expect(heard.sorted() == Array(0..<12), "every device's outcome is heard, sent or not")
    }
}

extension RoutingTests {
    @Test(
        "one table: each device to the leaf of its (app, service, environment), the app's default environment when unstated; the fallback only after its refusal, only for a guess"
    )
    func keyedTable() async throws {
        let apps = try #require(ConfiguredApps(["com.example.shop", "com.example.chess"]))
        let production = ScriptedPushProvider(outcomes: ["sandbox-token": .tokenInvalid(reason: "BadDeviceToken")])
        let sandbox = ScriptedPushProvider(outcomes: ["production-token": .tokenInvalid(reason: "BadDeviceToken")])
        let chessFCM = ScriptedPushProvider()
        let table = PushRoutingTable(
            routes: [
                PushRoute(
                    .init(app: "com.example.shop", service: .apns, environment: .production), provider: production),
                PushRoute(
                    .init(app: "com.example.shop", service: .apns, environment: .sandbox), provider: sandbox,
                    isDefaultEnvironment: false),
                PushRoute(.init(app: "com.example.chess", service: .fcm), provider: chessFCM),
            ], apps: apps, formats: .installed, logger: Logger(label: "test"))
        let shop = "com.example.shop"
        let targets = [
            DeliveryTarget(installationID: "store", token: .apns("production-token"), route: DeliveryRoute(app: shop)),
            DeliveryTarget(installationID: "xcode", token: .apns("sandbox-token"), route: DeliveryRoute(app: shop)),
            DeliveryTarget(
                installationID: "stated", token: .apns("sandbox-token"),
                route: DeliveryRoute(app: shop, environment: .production, environmentStated: true)),
            DeliveryTarget(
                installationID: "learned", token: .apns("sandbox-token"),
                route: DeliveryRoute(app: shop, environment: .sandbox)),
            DeliveryTarget(
                installationID: "chess", token: .fcm("f"), route: DeliveryRoute(app: "com.example.chess")),
            DeliveryTarget(
                installationID: "chess-apns", token: .apns("a"), route: DeliveryRoute(app: "com.example.chess")),
        ]
        let outcomes = await table.send(notification, to: targets)
        #expect(
            outcomes == [
                .delivered, .deliveredIn(.sandbox), .tokenInvalid(reason: "BadDeviceToken"), .delivered, .delivered,
                .failed(reason: "no_apns_provider"),
            ])
        #expect(
            production.sends.flatMap(\.targets).map(\.installationID).sorted() == ["stated", "store", "xcode"])
        #expect(sandbox.sends.flatMap(\.targets).map(\.installationID).sorted() == ["learned", "xcode"])
        #expect(chessFCM.sends.flatMap(\.targets).map(\.installationID) == ["chess"])
        #expect(table.deliveryName == "apns+fcm")
    }

    @Test("a cancelled fan-out starts no further chunk; those devices are not sent and not recorded")
    func cancelledFanOut() async throws {
        let provider = HeldProvider()
        let targets = Self.targets(apns: 6, fcm: 0)
        let fanOut = Task {
            await FanOut(chunkSize: 2, maxConcurrentChunks: 1).heard(notification, to: targets, via: provider)
        }
        for _ in 0..<500 where provider.calls == 0 { try await Task.sleep(for: .milliseconds(10)) }
        fanOut.cancel()
        provider.release()
        let (outcomes, heard) = await fanOut.value
        #expect(provider.calls == 1)
        #expect(
            outcomes == [.delivered, .delivered]
                + Array(repeating: .retryLater(reason: "NotSent", after: nil), count: 4))
        #expect(
            heard == [0, 1], "only the chunk that was sent is recorded, though it came back after the cancellation")
    }
}

/// Delivers once released, counting its calls.
private final class HeldProvider: PushProvider {
    private let gate = Completion<Bool>()
    private let count = NIOLockedValueBox(0)
    let deliveryName = "held"

    func send(_ notification: PushNotification, to targets: [DeliveryTarget]) async -> [DeliveryOutcome] {
        count.withLockedValue { $0 += 1 }
        // Not cancellable: a push on the wire is answered whatever the caller does.
        _ = await Task.detached { [gate] in await gate.wait(upTo: .seconds(60)) }.value
        return targets.map { _ in .delivered }
    }

    func release() { gate.complete(true) }
    var calls: Int { count.withLockedValue { $0 } }
}

/// A log handler that keeps the messages.
final class LogLines: LogHandler, @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    var all: [String] { lock.withLock { lines } }

    var metadata: Logger.Metadata {
        get { [:] }
        set {}
    }
    var logLevel: Logger.Level {
        get { .trace }
        set {}
    }
    subscript(metadataKey _: String) -> Logger.Metadata.Value? {
        get { nil }
        set {}
    }

    func log(event: LogEvent) {
        lock.withLock { lines.append(event.message.description) }
    }
}

extension FanOut {
    /// What a fan-out hands over, read as the runner reads it (in a task its
    /// cancellation does not reach): each target's outcome (`NotSent` when none was
    /// heard of) and the positions heard, in the order they came.
    func heard(_ notification: PushNotification, to targets: [DeliveryTarget], via provider: any PushProvider) async
        -> (outcomes: [DeliveryOutcome], positions: [Int])
    {
        let sent = AsyncChannel<SentChunk>()
        let reading = Task {
            var outcomes = [DeliveryOutcome](
                repeating: .retryLater(reason: "NotSent", after: nil), count: targets.count)
            var positions: [Int] = []
            for await chunk in sent {
                for (position, outcome) in zip(chunk.positions, chunk.outcomes) { outcomes[position] = outcome }
                positions += chunk.positions
            }
            return (outcomes, positions)
        }
        await deliver(notification, to: targets, via: provider, handingOver: sent)
        return await reading.value
    }
}
