import Foundation
import NIOConcurrencyHelpers
import PushgateCore

/// The `awaitDecision` calls held by this process (issue 73): each waits, at most
/// its time, for its approval to be decided or resolved. A decision or resolution
/// made here wakes its waits at once (``settled(_:)``); one made by another process
/// on the same database is seen by a poll that reads every waited record, all in one
/// read, twenty times a second while any wait is held — so within a tenth of a second
/// (the hook's answer is what a person waits for; one batched read of the waited
/// records is cheap beside it, and none is made while no wait is held).
///
/// A wait costs a ``Completion`` and two dictionary entries; waits are bounded per
/// namespace (`PUSHGATE_MAX_WAITING_DECISIONS`: one more is 429), and one whose caller
/// went away is given back at once.
public final class DecisionWaits: Sendable {
    /// How often the waited records are read while any wait is held.
    public static let pollInterval = Duration.milliseconds(50)

    private struct Wait {
        let serverKey: String
        let completion: Completion<Document>
    }

    private struct State {
        var waits: [DocumentPath: [Int: Wait]] = [:]
        var perNamespace: [String: Int] = [:]
        var nextID = 0
        var polling = false
    }

    private let store: any DocumentStore
    private let limitPerNamespace: Int
    private let state = NIOLockedValueBox(State())

    public init(store: any DocumentStore, limitPerNamespace: Int) {
        self.store = store
        self.limitPerNamespace = limitPerNamespace
    }

    /// Waits held now, every namespace's.
    public var count: Int { state.withLockedValue { $0.perNamespace.values.reduce(0, +) } }

    /// The record at `path` once it is decided or resolved, or `nil` when `limit`
    /// passes first (or the caller is cancelled: its caller went away). Throws 429
    /// when the namespace holds as many waits as it may.
    func wait(for path: DocumentPath, serverKey: String, upTo limit: Duration) async throws(FunctionError)
        -> Document?
    {
        let completion = Completion<Document>()
        let registered: (id: Int, poll: Bool)? = state.withLockedValue { state in
            guard state.perNamespace[serverKey, default: 0] < limitPerNamespace else { return nil }
            let id = state.nextID
            state.nextID += 1
            state.waits[path, default: [:]][id] = Wait(serverKey: serverKey, completion: completion)
            state.perNamespace[serverKey, default: 0] += 1
            defer { state.polling = true }
            return (id, !state.polling)
        }
        guard let registered else {
            throw FunctionError(
                .resourceExhausted,
                "this server holds \(limitPerNamespace) waits for decisions, the most this gateway allows (PUSHGATE_MAX_WAITING_DECISIONS); retry shortly",
                retryAfter: 1)
        }
        if registered.poll { startPolling() }
        let settled = await completion.wait(upTo: limit)
        state.withLockedValue { state in
            guard state.waits[path]?.removeValue(forKey: registered.id) != nil else { return }
            if state.waits[path]?.isEmpty == true { state.waits[path] = nil }
            let left = state.perNamespace[serverKey, default: 1] - 1
            state.perNamespace[serverKey] = left > 0 ? left : nil
        }
        return settled
    }

    /// `record` was decided or resolved here: its waits answer at once.
    public func settled(_ record: Document) {
        let completions = state.withLockedValue { $0.waits[record.path]?.values.map(\.completion) ?? [] }
        for completion in completions { completion.complete(record) }
    }

    /// Whether a record is over: decided, or resolved.
    static func isSettled(_ record: Document) -> Bool {
        record.string(FieldName.decidedAt) != nil || record.string(FieldName.resolvedAt) != nil
    }

    /// Reads every waited record each ``pollInterval`` while any wait is held, and
    /// answers the waits of those settled (by another process, or a decision here).
    private func startPolling() {
        Task { [weak self] in
            while let self {
                try? await Task.sleep(for: Self.pollInterval)
                let paths: [DocumentPath]? = self.state.withLockedValue { state in
                    guard !state.waits.isEmpty else {
                        state.polling = false
                        return nil
                    }
                    return Array(state.waits.keys)
                }
                guard let paths else { return }
                // A store that fails now is asked again at the next poll.
                guard let records = try? await self.store.documents(at: paths) else { continue }
                for record in records where Self.isSettled(record) { self.settled(record) }
            }
        }
    }
}
