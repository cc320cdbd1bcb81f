import Foundation
import PushgateCore
import PushgateOutboxRows

/// An outbox in memory, deciding what to store as the SQL outboxes do
/// (``EnqueueCourse``) and keeping times in their milliseconds; the outbox
/// conformance tests run against it too. For tests that need no file. Its methods are
/// in a file per part of the port (`InMemoryOutbox+Writing.swift` …).
public actor InMemoryOutbox: Outbox {
    struct DeliveryRow {
        var delivery: OutboxDelivery
        var state = DeliveryState.pending
        var attempts = 0
        let enqueuedAt: Int64
        var nextAttemptAt: Int64
        var leaseOwner: String?
        var leaseUntil: Int64?
        var lastReason: String?
        var removed = false
        var finishedAt: Int64?
        var deliveredReceiptAt: Int64?
        var openedReceiptAt: Int64?
        /// The service's name for the push (``DeliveryHistory/messageID``).
        var messageID: String?

        func status() -> ReportedDelivery {
            ReportedDelivery(
                installationID: delivery.installationID, provider: delivery.token.kind, state: state,
                attempts: attempts, lastReason: lastReason, removed: removed, route: delivery.route)
        }
    }

    struct DeliveryKey: Hashable {
        let notificationID: String
        let installationID: String
    }

    /// What a primary key refuses in the SQL outboxes.
    struct DuplicateRow: Error {}

    struct ExpansionState {
        var expansion: OutboxExpansion
        var leaseOwner: String?
        var leaseUntil: Int64?
    }

    var notifications: [String: NotificationRow] = [:]
    var deliveries: [DeliveryKey: DeliveryRow] = [:]
    var expansions: [String: ExpansionState] = [:]

    /// The documents a withdrawal removes devices from.
    let documents: InMemoryDocumentStore

    /// `documents`: the store this outbox's withdrawals commit to, as a SQL outbox
    /// commits to the documents of its own database.
    public init(documents: InMemoryDocumentStore) {
        self.documents = documents
    }
}
