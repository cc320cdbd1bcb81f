import Foundation
import Logging
import PushgateCore
import PushgateProviderKit
import Testing

@Suite("Delivery health: a refused configuration, a service that does not answer, and their recovery")
struct DeliveryHealthStateTests {
    let logger = Logger(label: "test")
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("silence degrades from its first chunk, keeps its first reason and time, and clears at the next answer")
    func silence() {
        let state = DeliveryHealthState(provider: "apns", serviceName: "APNs")
        #expect(state.health == .ok)
        state.noResponse(reason: "Timeout", at: start, logger: logger)
        state.noResponse(reason: "ConnectFailed", at: start.addingTimeInterval(10), logger: logger)
        #expect(state.health == .unanswered(provider: "apns", reason: "Timeout", since: start))
        #expect(state.health.isDegraded)
        state.answered(logger: logger)
        #expect(state.health == .ok, "any answer: a 503 or a refused token too")
    }

    @Test("a refused configuration wins over silence, is itself an answer, and only a delivered push clears it")
    func refusalFirst() {
        let state = DeliveryHealthState(provider: "fcm", serviceName: "FCM")
        state.noResponse(reason: "Timeout", at: start, logger: logger)
        #expect(state.degrade(reason: "THIRD_PARTY_AUTH_ERROR", at: start.addingTimeInterval(1)))
        #expect(state.health == .degraded(provider: "fcm", reason: "THIRD_PARTY_AUTH_ERROR", since: start + 1))
        state.answered(logger: logger)
        #expect(state.health.isDegraded, "an answer is not an accepted push")
        state.noResponse(reason: "Timeout", at: start.addingTimeInterval(2), logger: logger)
        #expect(state.recover())
        #expect(state.health == .ok)
        #expect(!state.recover(), "nothing to recover from")
    }

    @Test("the worst of several: a refusal before silence, each in the order given")
    func worst() {
        let silentAPNs = DeliveryHealth.unanswered(provider: "apns", reason: "Timeout", since: start)
        let silentFCM = DeliveryHealth.unanswered(provider: "fcm", reason: "ConnectFailed", since: start)
        let refusedFCM = DeliveryHealth.degraded(provider: "fcm", reason: "UNAUTHENTICATED", since: start)
        #expect(DeliveryHealth.worst([.ok, .ok]) == .ok)
        #expect(DeliveryHealth.worst([.ok, silentAPNs, silentFCM]) == silentAPNs)
        #expect(DeliveryHealth.worst([silentAPNs, refusedFCM]) == refusedFCM)
        #expect(silentAPNs.problem?.reason == "Timeout" && DeliveryHealth.ok.problem == nil)
    }
}
