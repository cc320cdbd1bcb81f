import Foundation
import PushgateCore

/// `servers/{serverKey}` and its `sources`: the namespace's creation, and when the
/// agent side last called.
///
/// Only a registration creates a namespace: a call with a secret never registered
/// (a typo, a scanner) writes nothing, so unknown secrets cannot fill the store.
/// Only agent-side calls (`heartbeat`, the triggers, `resolveEvent`) refresh
/// `lastSeenAt`: the app's own calls say nothing about whether the proxy is alive.
/// Each time is written at most once per ``writeInterval``, so that a proxy's
/// heartbeat every few seconds costs a read, not a write.
public struct ServerPresence: Sendable {
    /// The most often a `lastSeenAt` is written.
    public static let writeInterval: TimeInterval = 10

    let store: any DocumentStore
    let policy: PresencePolicy

    public init(store: any DocumentStore, policy: PresencePolicy = PresencePolicy()) {
        self.store = store
        self.policy = policy
    }

    /// The write that creates the server at `now` when it has no document (`exists`,
    /// as the caller read it), once `admitNew` lets it (it throws to refuse: a limit
    /// on new namespaces); none when it exists.
    public static func creation(
        of serverKey: ServerKey, exists: Bool, at now: Date, admitNew: @Sendable () throws -> Void
    ) throws -> [DocumentWrite] {
        guard !exists else { return [] }
        try admitNew()
        let timestamp = JSONValue.string(RFC3339.format(now))
        return [.set(NamespacePaths.server(serverKey), [FieldName.createdAt: .valueIfAbsent(timestamp)])]
    }

    /// The writes that record an agent-side call at `now`, from `source` when the
    /// call names one: none for a server that has no document, or for times written
    /// less than ``writeInterval`` ago. Each holds only while the server exists, so a
    /// namespace swept meanwhile stays gone. A new source beyond the policy's cap is
    /// refused with `LIMIT_REACHED`.
    public func agentCall(_ serverKey: ServerKey, at now: Date, source: String? = nil) async throws
        -> [DocumentWrite]
    {
        let serverPath = NamespacePaths.server(serverKey)
        guard let server = try await store.document(at: serverPath) else { return [] }
        let timestamp = JSONValue.string(RFC3339.format(now))
        var writes: [DocumentWrite] = []
        if isStale(server, at: now) {
            writes.append(.set(serverPath, [FieldName.lastSeenAt: .value(timestamp)], if: .exists))
        }
        guard let source else { return writes }
        let sourcePath = NamespacePaths.source(source, of: serverKey)
        let known = try await store.document(at: sourcePath)
        if known == nil,
            try await store.count(in: NamespacePaths.sources(of: serverKey), upTo: policy.maxSourcesPerServer)
                >= policy.maxSourcesPerServer
        {
            throw FunctionError(
                .limitReached,
                "this server already names \(policy.maxSourcesPerServer) sources; reuse one of them",
                field: "source")
        }
        if known.map({ isStale($0, at: now) }) ?? true {
            // A source left behind by a server swept between the read and this write
            // goes with the next sweep (its lastSeenAt is as old as the server's).
            writes.append(
                .set(
                    sourcePath,
                    [
                        FieldName.source: .value(.string(source)), FieldName.createdAt: .valueIfAbsent(timestamp),
                        FieldName.lastSeenAt: .value(timestamp),
                    ]))
        }
        return writes
    }

    /// Records an agent-side call on its own (for calls that write nothing else).
    public func touch(_ serverKey: ServerKey, at now: Date, source: String? = nil) async throws {
        let writes = try await agentCall(serverKey, at: now, source: source)
        if !writes.isEmpty { try await store.commit(writes) }
    }

    /// Whether `document`'s `lastSeenAt` is missing or at least ``writeInterval`` old.
    private func isStale(_ document: Document, at now: Date) -> Bool {
        guard let last = document.string(FieldName.lastSeenAt).flatMap(RFC3339.parse) else { return true }
        return !(0..<Self.writeInterval).contains(now.timeIntervalSince(last))
    }
}
