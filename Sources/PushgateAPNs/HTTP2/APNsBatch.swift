import NIOCore

/// The answers to a batch of pushes sent on one connection, gathered into one
/// future: one promise per batch rather than one per push keeps the hot path
/// free of per-push allocations and task hops.
///
/// Used on its connection's event loop only.
final class APNsBatch: @unchecked Sendable {
    // @unchecked: created, completed and read on one event loop; it crosses closures
    // only to be handed back to that loop.

    private var answers: [APNsAnswer?]
    private var remaining: Int
    private let promise: EventLoopPromise<[APNsAnswer]>

    init(count: Int, promise: EventLoopPromise<[APNsAnswer]>) {
        answers = Array(repeating: nil, count: count)
        remaining = count
        self.promise = promise
        if count == 0 { promise.succeed([]) }
    }

    var futureResult: EventLoopFuture<[APNsAnswer]> { promise.futureResult }

    /// Records the answer of push `index`; the last one completes the batch.
    func complete(_ index: Int, with answer: APNsAnswer) {
        guard answers[index] == nil else { return }
        answers[index] = answer
        remaining -= 1
        if remaining == 0 {
            promise.succeed(answers.map { $0 ?? .transportFailure(.notSent) })
        }
    }
}
