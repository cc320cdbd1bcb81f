import NIOConcurrencyHelpers
import PushgateCore

/// A change feed whose "processes" are objects in one test process: what PostgreSQL's
/// NOTIFY does between gateway processes, for the unit tests of what listens
/// (``DocumentChangeFeed``). Every announcement reaches every listener at once.
public final class InProcessChangeFeed: DocumentChangeFeed {
    private let listeners = NIOLockedValueBox([Int: AsyncStream<DocumentPath>.Continuation]())
    private let nextID = NIOLockedValueBox(0)

    public init() {}

    /// How many listen now.
    public var listening: Int { listeners.withLockedValue { $0.count } }

    public func announce(_ path: DocumentPath) async {
        for listener in listeners.withLockedValue({ Array($0.values) }) { listener.yield(path) }
    }

    public func listen(_ heard: @escaping @Sendable (DocumentPath?) async -> Void) async {
        let (paths, continuation) = AsyncStream.makeStream(of: DocumentPath.self)
        let id = nextID.withLockedValue { id in
            defer { id += 1 }
            return id
        }
        listeners.withLockedValue { $0[id] = continuation }
        defer { _ = listeners.withLockedValue { $0.removeValue(forKey: id) } }
        await heard(nil)
        for await path in paths { await heard(path) }
    }
}
