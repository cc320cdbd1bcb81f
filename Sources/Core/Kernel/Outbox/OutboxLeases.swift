import Foundation

/// How workers share the outbox: deliveries leased to one holder at a time, renewed
/// while a try runs, their outcomes recorded by that holder only, leases given
/// back, finished rows pruned.
public protocol OutboxLeases: Sendable {
    /// Leases up to `limit` deliveries that are due (`nextAttemptAt` passed) and not
    /// leased by anyone (or whose lease ran out), oldest due first.
    func claim(owner: String, now: Date, leaseUntil: Date, limit: Int) async throws -> [OutboxDelivery]

    /// A stored notification.
    func notification(id: String) async throws -> OutboxNotification?

    /// Applies what attempts decided, only to deliveries still pending and leased
    /// by `owner`: a delivery is finished once, by its holder.
    func record(_ updates: [DeliveryUpdate], owner: String, now: Date) async throws

    /// Keeps `owner`'s leases on a notification's pending deliveries, and on its
    /// expansion, until `date`: a long first try renews them while it runs, so that
    /// the lease can stay short (and a crashed worker's deliveries are taken over soon).
    func extendLeases(owner: String, notificationID: String, until date: Date) async throws

    /// Renews `owner`'s leases on some deliveries of a notification just before they
    /// are sent, and answers which of them it still holds (pending, leased by
    /// `owner`): only those may be sent. A lease that ran out may have been claimed by
    /// another worker, which sends those deliveries itself.
    func confirmLeases(owner: String, notificationID: String, installationIDs: [String], until date: Date)
        async throws -> Set<String>

    /// Gives up the leases on deliveries still pending and on expansions held by
    /// `owner` or by one of its tries (an owner `owner#…`), so another worker (or this
    /// one after a restart) takes them at once.
    func release(owner: String) async throws

    /// Deletes finished deliveries enqueued before `date`, and notifications left
    /// with none; answers how many deliveries went.
    func prune(enqueuedBefore date: Date) async throws -> Int
}
