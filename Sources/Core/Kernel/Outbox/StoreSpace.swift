import Foundation

/// A store on the gateway's own disk (SQLite), which can say how much room it has
/// left and give back its oldest finished history to make more, so that a disk
/// filling up costs history before it costs new pushes. A PostgreSQL server's disk
/// is not the gateway's to see: that store has none.
public protocol StoreSpace: Sendable {
    /// Bytes the store can still grow by: its disk's free space as this process may
    /// use it (less under a file-size limit), plus the pages its file holds free for
    /// reuse.
    func room() async throws -> Int64

    /// Deletes up to `limit` of the oldest finished deliveries (delivered, failed,
    /// cancelled), oldest stored first, never one of a notification whose devices are
    /// still being read page by page; then the notifications left without deliveries
    /// that were created before `notificationsBefore` (younger ones still answer a
    /// repeated trigger as a duplicate).
    func pruneOldestFinished(limit: Int, notificationsBefore: Date) async throws -> PrunedHistory
}

/// What one ``StoreSpace/pruneOldestFinished(limit:notificationsBefore:)`` deleted.
public struct PrunedHistory: Sendable, Hashable {
    public var deliveries: Int
    public var notifications: Int
    /// When the newest delivery deleted was stored.
    public var newestEnqueuedAt: Date?

    public init(deliveries: Int, notifications: Int, newestEnqueuedAt: Date?) {
        self.deliveries = deliveries
        self.notifications = notifications
        self.newestEnqueuedAt = newestEnqueuedAt
    }
}
