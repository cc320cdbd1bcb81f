import Foundation
import PushgateCore

/// `servers/{serverKey}`: created by `registerSubscription` only, its `lastSeenAt`
/// refreshed by every accepted call — written at most once per ``writeInterval`` per
/// server, so that a proxy's heartbeat every few seconds costs a read, not a write.
///
/// Only a registration creates a namespace: a call with a secret never registered
/// (a typo, a scanner) writes nothing, so unknown secrets cannot fill the store.
public struct ServerPresence: Sendable {
    /// The most often `lastSeenAt` is written.
    public static let writeInterval: TimeInterval = 10

    let store: any DocumentStore

    public init(store: any DocumentStore) {
        self.store = store
    }

    /// The writes that record a call at `now`: none when `lastSeenAt` is recent or,
    /// without `admitNew`, when the server has no document. With it, a missing server
    /// is created once `admitNew` lets it (it throws to refuse: a limit on new
    /// namespaces). The update of an existing server holds only while it exists, so a
    /// namespace swept meanwhile stays gone.
    public func writes(
        for serverKey: ServerKey, at now: Date, admitNew: (@Sendable () throws -> Void)? = nil
    ) async throws -> [DocumentWrite] {
        let server = try await store.document(at: NamespacePaths.server(serverKey))
        let creating = server == nil && admitNew != nil
        if server == nil {
            guard let admitNew else { return [] }
            try admitNew()
        }
        if let last = server?.string(FieldName.lastSeenAt).flatMap(RFC3339.parse),
            (0..<Self.writeInterval).contains(now.timeIntervalSince(last))
        {
            return []
        }
        let timestamp = JSONValue.string(RFC3339.format(now))
        return [
            .set(
                NamespacePaths.server(serverKey),
                [FieldName.createdAt: .valueIfAbsent(timestamp), FieldName.lastSeenAt: .value(timestamp)],
                if: creating ? nil : .exists
            )
        ]
    }

    /// Records a call on its own (for calls that write nothing else).
    public func touch(_ serverKey: ServerKey, at now: Date) async throws {
        let writes = try await writes(for: serverKey, at: now)
        if !writes.isEmpty { try await store.commit(writes) }
    }
}
