/// The long poll the agent's side waits with (``PersonWait``, ``PhonePairing``): one
/// call after another, each asking the gateway to hold it for what is left of the wait,
/// until one ends it or the deadline passes. It never spins: a call that comes back at
/// once (a gateway answering "nothing yet" without holding the call, one that refuses,
/// one that is down) is followed by a pause of at least ``firstPause``, doubling to
/// ``longestPause``; one that held its wait is followed at once. A gateway that never
/// answers costs one call per ``maxWaitPerCall``, and the deadline holds whatever it does.
enum LongPoll {
    /// The longest one call holds, as the gateway allows.
    static let maxWaitPerCall = 300
    /// A call shorter than this came back at once.
    static let firstPause: Duration = .milliseconds(500)
    static let longestPause: Duration = .seconds(8)

    /// Calls `poll` — with the seconds the gateway is to hold the call, and how long the
    /// call may take in all (its wait and `callTimeout`, never the deadline by more than
    /// a second) — until it ends the wait; `nil` when the deadline passes first, or the
    /// task is cancelled (an MCP client that gave up).
    static func until<Ending>(
        _ deadline: ContinuousClock.Instant, callTimeout: Duration,
        _ poll: (_ wait: Int, _ timeout: Duration) async -> Ending?
    ) async -> Ending? {
        var pause = firstPause
        while true {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero, !Task.isCancelled else { return nil }
            let wait = seconds(left)
            let started = ContinuousClock.now
            if let ending = await poll(wait, min(.seconds(wait) + callTimeout, left + .seconds(1))) { return ending }
            guard started.duration(to: .now) < firstPause else {
                pause = firstPause
                continue
            }
            do {
                try await Task.sleep(for: min(pause, ContinuousClock.now.duration(to: deadline)))
            } catch {
                return nil
            }
            pause = min(pause * 2, longestPause)
        }
    }

    /// The seconds one call asks the gateway to hold it, of `left`: whole seconds (the
    /// wire's), rounded up — the last part of a second is waited too — and no more
    /// than ``maxWaitPerCall``.
    static func seconds(_ left: Duration) -> Int {
        let (whole, fraction) = left.components
        return Int(min(Int64(maxWaitPerCall), max(0, whole + (fraction > 0 ? 1 : 0))))
    }
}
