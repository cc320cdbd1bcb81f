/// Polls `condition` every `interval` until it holds. After `limit` it throws
/// ``WaitTimedOut`` naming `what` was waited for, which the test records as its issue:
/// a poll that can never succeed fails its test at once, instead of hanging to the
/// suite's time limit with nothing said.
public func waitUntil(
    _ what: String, within limit: Duration = .seconds(30), every interval: Duration = .milliseconds(10),
    _ condition: () async throws -> Bool
) async throws {
    let clock = ContinuousClock()
    let deadline = clock.now + limit
    while try await !condition() {
        guard clock.now < deadline else { throw WaitTimedOut(what: what, limit: limit) }
        try await Task.sleep(for: interval)
    }
}

/// A ``waitUntil(_:within:every:_:)`` whose condition did not hold in time.
public struct WaitTimedOut: Error, CustomStringConvertible {
    public let what: String
    public let limit: Duration

    public var description: String { "waited \(limit) for \(what), in vain" }
}
