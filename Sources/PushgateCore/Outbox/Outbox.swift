import Foundation

/// Where accepted notifications wait until each device has been sent its push or
/// given up on: written before a trigger answers, so that a crash, a restart or an
/// APNs outage loses nothing.
///
/// Several workers (processes) may share one outbox: a delivery is sent by whoever
/// holds its lease; a lease that runs out (its holder died) makes it claimable
/// again, so every delivery is sent at least once and never by two holders at the
/// same time while their leases run.
public protocol Outbox: Sendable {
    /// Stores a notification and its deliveries in one atomic write (see
    /// ``EnqueueRequest``). With an idempotency key already used for this server less
    /// than its window ago, stores nothing and answers the earlier notification's id.
    func enqueue(_ request: EnqueueRequest) async throws -> EnqueueResult

    /// Withdraws a notification not yet sent (a reminder whose approval was resolved):
    /// deletes its deliveries still pending and unleased; answers how many.
    func cancel(notificationID: String) async throws -> Int

    /// Unsubscribes a device in one transaction: commits `writes` (the removal of its
    /// device documents) to `store`, which must keep its documents in this outbox's
    /// database, and records every delivery `withdrawal` names that is still pending
    /// as `cancelled` (reason ``DeliveryWithdrawal/reason``), leased or not. A try in
    /// flight may still have handed its push to the service; what it answers is not
    /// recorded over the cancellation.
    func withdraw(_ withdrawal: DeliveryWithdrawal, committing writes: [DocumentWrite], to store: any DocumentStore)
        async throws -> DeliveryWithdrawal.Result

    /// The notification stored under an idempotency key for this server after `date`.
    func notificationID(idempotencyKey: String, serverKey: String, since date: Date) async throws -> String?

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

    /// Stores the next page of an expansion (see ``OutboxExpansion``) once its first
    /// try is over, only while `owner` holds the expansion: each delivery (of the
    /// devices after the cursor, up to `cursor`) written once, as its try left it
    /// (delivered or failed, finished at `now`; a retry due when it said; one not
    /// tried due at once), unleased; but not over a delivery of an installation the
    /// notification has already. Moves the cursor and renews the expansion's lease
    /// until `leaseUntil`, in one transaction; then ends the expansion when
    /// `finished` (in the same transaction or just after it: should the process die
    /// in between, whoever takes the expansion over finds no device after the cursor,
    /// and ends it). `false` when `owner` no longer holds the expansion (stored
    /// nothing).
    ///
    /// A page is written after its pushes, not before them: a row written pending and
    /// then updated with its outcome cost two writes of every row and its indexes.
    /// A page sent by an expander that died before storing it is sent again by the
    /// worker that takes the expansion over from the cursor (at least once, as a
    /// delivery whose outcome was not recorded). A device that unsubscribes while its
    /// page is out may still be sent that page's push, and the retry it asked for.
    ///
    /// A token met on an earlier page (a phone registered twice) is the expander's to
    /// leave out (``deliveryTokens(of:after:limit:)`` lists what the pages stored): an
    /// index by token would take every page's tokens in random order, and its upkeep
    /// cost more than the rest of a page's write.
    func storeTriedPage(
        _ deliveries: [TriedDelivery], of notificationID: String, owner: String, cursor: String?, finished: Bool,
        leaseUntil: Date, now: Date
    ) async throws -> Bool

    /// Renews `owner`'s lease on an expansion until `date`; `false` when it no longer
    /// holds it (its lease ran out and another worker took it over): its pages then
    /// must not be sent.
    func holdExpansion(owner: String, notificationID: String, until date: Date) async throws -> Bool

    /// The tokens of a notification's deliveries, with their installation ids, in
    /// installation-id order after `installationID`, at most `limit`: what the pages
    /// of an expansion stored, read by whoever takes it over.
    func deliveryTokens(of notificationID: String, after installationID: String?, limit: Int) async throws
        -> [(installationID: String, token: String)]

    /// Leases an expansion nobody holds (its expander died, or it was stored unleased
    /// for want of room) until `leaseUntil`, the oldest first.
    func claimExpansion(owner: String, now: Date, leaseUntil: Date) async throws -> OutboxExpansion?

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

    /// Every delivery of a notification, by installation id; for an event folded into
    /// another's push (coalescing), that push's.
    func statuses(of notificationID: String) async throws -> [DeliveryStatus]

    /// The deliveries of a notification counted by state, last reason and removal
    /// (see ``statuses(of:)`` for the notification that carries a coalesced one), in
    /// one query whatever their number.
    func tallies(of notificationID: String) async throws -> [DeliveryTally]

    /// Per agent of `agentKeys` (every one has an entry): what was last sent for it
    /// (reminders aside), how it went, and how many reminders wait — for a page of
    /// diagnostics, in a fixed number of queries however many agents it holds.
    func activities(serverKey: String, agentKeys: [String]) async throws -> [String: AgentActivity]

    /// One device's deliveries of `notificationIDs`, by notification id (absent where
    /// it had none), in one query.
    func statuses(of notificationIDs: [String], installationID: String) async throws -> [String: DeliveryStatus]

    /// Backlog figures for health checks, as of `now`.
    func stats(now: Date) async throws -> OutboxStats

    /// Deliveries in the given states, newest first, for operators.
    func entries(in states: Set<DeliveryState>, limit: Int) async throws -> [OutboxEntry]

    /// Deletes finished deliveries enqueued before `date`, and notifications left
    /// with none; answers how many deliveries went.
    func prune(enqueuedBefore date: Date) async throws -> Int
}
