import Foundation
import Testing

@testable import PushgateCore

@Suite("Completion: a one-time signal waited for with a time limit")
struct CompletionTests {
    @Test("a wait gets the value completed before its time, or nil once its time passes; a later wait the value")
    func timeLimit() async {
        let done = Completion<Int>()
        let started = ContinuousClock.now
        #expect(await done.wait(upTo: .milliseconds(50)) == nil)
        #expect(ContinuousClock.now - started >= .milliseconds(50))

        let waiting = Task { await done.wait(upTo: .seconds(60)) }
        try? await Task.sleep(for: .milliseconds(20))
        done.complete(7)
        #expect(await waiting.value == 7)
        #expect(await done.wait(upTo: .zero) == 7, "completed: answered at once, whatever the limit")
    }

    @Test("a cancelled wait ends at once with nil, long before its time")
    func cancelled() async {
        let never = Completion<Int>()
        let waiting = Task { await never.wait(upTo: .seconds(3600)) }
        waiting.cancel()
        #expect(await waiting.value == nil)
    }

    @Test("any limit becomes a dispatch interval without trapping: below zero is none, past a year a year")
    func intervals() {
        #expect(Completion<Int>.dispatchInterval(.seconds(-5)) == .nanoseconds(0))
        #expect(Completion<Int>.dispatchInterval(.milliseconds(1500)) == .nanoseconds(1_500_000_000))
        #expect(
            Completion<Int>.dispatchInterval(.seconds(Int64.max)) == .nanoseconds(366 * 86_400 * 1_000_000_000))
    }
}
