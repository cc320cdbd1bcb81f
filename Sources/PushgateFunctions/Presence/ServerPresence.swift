import Foundation
import PushgateCore

/// `servers/{serverKey}`: created on first sight, its `lastSeenAt` refreshed by every
/// accepted call — written at most once per ``writeInterval`` per server, so that a
/// proxy's heartbeat every few seconds costs a read, not a write.
public struct ServerPresence: Sendable {
    /// The most often `lastSeenAt` is written.
    public static let writeInterval: TimeInterval = 10

    let store: any DocumentStore

    public init(store: any DocumentStore) {
        self.store = store
    }

    /// The writes that record a call at `now`: none when `lastSeenAt` is recent.
    public func writes(for serverKey: ServerKey, at now: Date) async throws -> [DocumentWrite] {
        let server = try await store.document(at: NamespacePaths.server(serverKey))
        if let last = server?.string(FieldName.lastSeenAt).flatMap(RFC3339.parse),
            (0..<Self.writeInterval).contains(now.timeIntervalSince(last))
        {
            return []
        }
        let timestamp = JSONValue.string(RFC3339.format(now))
        return [
            .set(
                NamespacePaths.server(serverKey),
                [FieldName.createdAt: .valueIfAbsent(timestamp), FieldName.lastSeenAt: .value(timestamp)]
            )
        ]
    }

    /// Records a call on its own (for calls that write nothing else).
    public func touch(_ serverKey: ServerKey, at now: Date) async throws {
        let writes = try await writes(for: serverKey, at: now)
        if !writes.isEmpty { try await store.commit(writes) }
    }
}
