import NIOCore

/// The answers to a batch of requests sent on one connection, gathered into one
/// future: one promise per batch rather than one per request keeps the hot path
/// free of per-request allocations and task hops.
///
/// Used on its connection's event loop only.
package final class HTTP2Batch: @unchecked Sendable {
    // @unchecked: created, completed and read on one event loop; it crosses closures
    // only to be handed back to that loop.

    private var responses: [HTTP2Response?]
    private var remaining: Int
    private let promise: EventLoopPromise<[HTTP2Response]>

    package init(count: Int, promise: EventLoopPromise<[HTTP2Response]>) {
        responses = Array(repeating: nil, count: count)
        remaining = count
        self.promise = promise
        if count == 0 { promise.succeed([]) }
    }

    package var futureResult: EventLoopFuture<[HTTP2Response]> { promise.futureResult }

    /// Answers every request still without an answer with `answer` (its deadline
    /// passed); answers that come later are dropped.
    func completeRemaining(with response: HTTP2Response) {
        for index in responses.indices where responses[index] == nil { complete(index, with: response) }
    }

    /// Records the answer of request `index`; the last one completes the batch.
    func complete(_ index: Int, with response: HTTP2Response) {
        guard responses[index] == nil else { return }
        responses[index] = response
        remaining -= 1
        if remaining == 0 {
            promise.succeed(responses.map { $0 ?? .transportFailure(.notSent) })
        }
    }
}
