import Foundation

/// A big agent's notification made page by page (``OutboxExpansion``): its pages
/// stored once tried, its lease held while they are out, taken over by another
/// worker when its expander died.
public protocol OutboxExpansions: Sendable {
    /// Stores the next page of an expansion (see ``OutboxExpansion``), or the next
    /// few pages together, once their first try is over, only while `owner` holds the
    /// expansion: each delivery (of the devices after the cursor, up to `cursor`)
    /// written once, as its try left it (delivered or failed, finished at `now`; a
    /// retry due when it said; one not tried due at once), unleased; but not over a
    /// delivery of an installation the notification has already. Moves the cursor
    /// and renews the expansion's lease until `leaseUntil`, in one transaction; then
    /// ends the expansion when `finished` (in the same transaction or just after it:
    /// should the process die in between, whoever takes the expansion over finds no
    /// device after the cursor, and ends it). `false` when `owner` no longer holds
    /// the expansion (stored nothing).
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
}
