import Foundation
import NIOConcurrencyHelpers

/// A wall clock that stands still until a test moves it.
public final class TestClock: Sendable {
    private let current: NIOLockedValueBox<Date>

    public init(_ start: Date = Date(timeIntervalSince1970: 1_795_323_872)) {
        current = NIOLockedValueBox(start)
    }

    /// The clock's time; pass `clock.now` where a `() -> Date` is wanted.
    @Sendable public func now() -> Date {
        current.withLockedValue { $0 }
    }

    public func advance(by seconds: TimeInterval) {
        current.withLockedValue { $0 += seconds }
    }
}
