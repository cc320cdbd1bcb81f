import Foundation
import NIOConcurrencyHelpers
import PushgateCore

/// The `awaitDecision` calls held by this process (issue 73): each waits, at most
/// its time, for its approval to be decided or resolved; and the `awaitPairing`
/// calls (issue 82), each for a phone to complete its pairing. A wait ends when its
/// record meets its condition (``isSettled(_:)`` for a decision).
///
/// A decision or resolution made here wakes its waits at once (``settled(at:)``),
/// and is announced on the store's change feed (PostgreSQL's NOTIFY), which wakes
/// those another process on the same database holds: each process listens while it
/// holds any wait and reads only the record it hears of. Words can be lost (a
/// process that stops between its commit and its announcement, a listener between
/// connections; a SQLite file has no feed at all, for the rare second process on
/// it), so every waited record is also read once a ``pollInterval`` — every 30 s
/// with a feed, every 5 s without — in reads of a hundred: the one cost that
/// grows with the waits. While no wait is held nothing is read and nothing listens.
///
/// A wait costs a ``Completion`` and two dictionary entries; waits are bounded per
/// namespace (`PUSHGATE_MAX_WAITING_DECISIONS`: one more is 429), and one whose caller
/// went away is given back at once.
public final class DecisionWaits: Sendable {
    /// How often every waited record is read while any wait is held, for what no
    /// announcement told.
    public let pollInterval: Duration

    private struct Wait {
        let serverKey: String
        let completion: Completion<Document>
        /// What the record must say for the wait to end.
        let condition: @Sendable (Document) -> Bool
    }

    private struct State {
        var waits: [DocumentPath: [Int: Wait]] = [:]
        var perNamespace: [String: Int] = [:]
        var nextID = 0
        /// Listens and polls while any wait is held.
        var watcher: Task<Void, Never>?
    }

    private let store: any DocumentStore
    private let feed: (any DocumentChangeFeed)?
    private let limitPerNamespace: Int
    private let state = NIOLockedValueBox(State())

    /// `feed`: how the processes sharing `store` tell one another of a decision;
    /// `nil` where one process is all there usually is (SQLite).
    public init(
        store: any DocumentStore, feed: (any DocumentChangeFeed)?, limitPerNamespace: Int,
        pollInterval: Duration? = nil
    ) {
        self.store = store
        self.feed = feed
        self.limitPerNamespace = limitPerNamespace
        self.pollInterval = pollInterval ?? (feed == nil ? .seconds(5) : .seconds(30))
    }

    /// Waits held now, every namespace's.
    public var count: Int { state.withLockedValue { $0.perNamespace.values.reduce(0, +) } }

    /// The record at `path` once it meets `condition` (by default: decided or
    /// resolved), or `nil` when `limit` passes first (or the caller is cancelled: its
    /// caller went away). Throws 429 when the namespace holds as many waits as it may.
    func wait(
        for path: DocumentPath, serverKey: String, upTo limit: Duration,
        until condition: @escaping @Sendable (Document) -> Bool = DecisionWaits.isSettled
    ) async throws(FunctionError) -> Document? {
        let completion = Completion<Document>()
        let id: Int? = state.withLockedValue { state in
            guard state.perNamespace[serverKey, default: 0] < limitPerNamespace else { return nil }
            let id = state.nextID
            state.nextID += 1
            state.waits[path, default: [:]][id] = Wait(
                serverKey: serverKey, completion: completion, condition: condition)
            state.perNamespace[serverKey, default: 0] += 1
            if state.watcher == nil { state.watcher = startWatching() }
            return id
        }
        guard let id else {
            throw FunctionError(
                .resourceExhausted,
                "this server holds \(limitPerNamespace) waits for decisions, the most this gateway allows (PUSHGATE_MAX_WAITING_DECISIONS); retry shortly",
                retryAfter: 1)
        }
        // Read once more now that the wait is in place: a decision committed since the
        // caller's read, announced before the wait was there to hear it, is not missed.
        await answer([path])
        let settled = await completion.wait(upTo: limit)
        let watcher: Task<Void, Never>? = state.withLockedValue { state in
            guard state.waits[path]?.removeValue(forKey: id) != nil else { return nil }
            if state.waits[path]?.isEmpty == true { state.waits[path] = nil }
            let left = state.perNamespace[serverKey, default: 1] - 1
            state.perNamespace[serverKey] = left > 0 ? left : nil
            guard state.waits.isEmpty else { return nil }
            defer { state.watcher = nil }
            return state.watcher
        }
        watcher?.cancel()
        return settled
    }

    /// The record at `path` was decided, resolved or completed here: its waits in this
    /// process answer at once, and those of the other processes once they hear of it.
    public func settled(at path: DocumentPath) async {
        await answer([path])
        await feed?.announce(path)
    }

    /// Whether a record is over: decided, or resolved (``EventResolution/isSettled(_:)``).
    static func isSettled(_ record: Document) -> Bool {
        EventResolution.isSettled(record)
    }

    /// Answers the waits on `paths` (every waited path when `nil`) whose records meet
    /// their conditions; the records are read only when a wait is held on them. A
    /// store that fails now leaves them to the next poll.
    private func answer(_ paths: [DocumentPath]?) async {
        let waited: [DocumentPath] = state.withLockedValue { state in
            guard let paths else { return Array(state.waits.keys) }
            return paths.filter { state.waits[$0] != nil }
        }
        // In reads of at most a hundred: a poll of a thousand waits never holds a
        // connection, nor the answers waiting behind it, for long.
        for start in stride(from: 0, to: waited.count, by: Self.pollBatch) {
            let batch = Array(waited[start..<min(start + Self.pollBatch, waited.count)])
            guard let records = try? await store.documents(at: batch) else { continue }
            for record in records {
                let waits = state.withLockedValue { $0.waits[record.path].map { Array($0.values) } ?? [] }
                for wait in waits where wait.condition(record) { wait.completion.complete(record) }
            }
        }
    }

    /// The most records one read of a poll asks for.
    static let pollBatch = 100

    /// Listens on the feed and polls until cancelled, once the last wait is given
    /// back (it holds `self` until then, as the waits do).
    private func startWatching() -> Task<Void, Never> {
        Task {
            await withDiscardingTaskGroup { group in
                if let feed {
                    group.addTask {
                        // nil: listening (again), anything may have changed: every waited record.
                        await feed.listen { path in await self.answer(path.map { [$0] }) }
                    }
                }
                group.addTask {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: self.pollInterval)
                        guard !Task.isCancelled else { return }
                        await self.answer(nil)
                    }
                }
            }
        }
    }
}
