import Foundation

/// What a function writes to the outbox: notifications accepted, withdrawn before
/// they are sent, a device's deliveries cancelled as it unsubscribes.
public protocol OutboxWriting: Sendable {
    /// Stores a notification and its deliveries in one atomic write (see
    /// ``EnqueueRequest``). With an idempotency key already used for this server less
    /// than its window ago, stores nothing and answers the earlier notification's id.
    func enqueue(_ request: EnqueueRequest) async throws -> EnqueueResult

    /// Withdraws a notification not yet sent (a reminder whose approval was resolved):
    /// deletes its deliveries still pending and unleased; answers how many.
    func cancel(notificationID: String) async throws -> Int

    /// Unsubscribes a device in one transaction: commits `writes` (the removal of its
    /// device documents) to the documents of this outbox's own database (the SQL
    /// stores keep both in one; the in-memory outbox has the document store it was
    /// made with), and records every delivery `withdrawal` names that is still pending
    /// as `cancelled` (reason ``DeliveryWithdrawal/reason``), leased or not. A try in
    /// flight may still have handed its push to the service; what it answers is not
    /// recorded over the cancellation.
    func withdraw(_ withdrawal: DeliveryWithdrawal, committing writes: [DocumentWrite]) async throws
        -> DeliveryWithdrawal.Result

    /// Keeps a phone's receipt on its deliveries of each event it names (all of the
    /// event's pushes to that installation; the first time of each kind stands), in
    /// one transaction: when one of the events was never sent to the installation,
    /// nothing is recorded and those events are answered.
    func record(_ receipt: DeliveryReceipt) async throws -> DeliveryReceipt.Outcome
}
