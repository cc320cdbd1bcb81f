import Foundation
import PushgateCore

/// What moving a store's contents takes from it (port): every record read from one
/// consistent snapshot, and batches of records written one transaction each.
public protocol StoreTransfer: Sendable {
    /// Calls `emit` with every document under `servers/` (or under
    /// `servers/{namespace}`) in path order, then the outbox's notifications with work
    /// left, their pending deliveries and unfinished expansions, all read in one
    /// transaction. Memory stays bounded: rows are read as they are emitted.
    func export(namespace: String?, _ emit: (DumpRecord) throws -> Void) async throws

    /// How many documents are under `servers/` (or `servers/{namespace}`): the total
    /// an export's progress is measured against.
    func documentCount(inNamespace namespace: String?) async throws -> Int

    /// Whether the namespace `servers/{serverKey}` holds any document.
    func hasDocuments(inNamespace serverKey: String) async throws -> Bool

    /// Stores a batch in one transaction and says what became of each item, in
    /// order. A document equal to the stored one, or an outbox row already there as
    /// it is, is `unchanged`; a record the store lacks is written (so the same dump
    /// run again after an interruption completes it); a document that may not write
    /// and differs from the stored one is `refused`. Outbox rows are never
    /// overwritten: one there in another form is `refused`.
    /// With `allOrNothing`, a batch with any refusal writes nothing.
    func store(_ batch: [DumpImportItem], allOrNothing: Bool) async throws -> [DumpImportOutcome]
}

/// One record to import, and whether it may replace a stored document that differs
/// (its namespace was empty when the import reached it, or `--merge` was given).
public struct DumpImportItem: Sendable {
    public let record: DumpRecord
    public let mayWrite: Bool

    public init(record: DumpRecord, mayWrite: Bool) {
        self.record = record
        self.mayWrite = mayWrite
    }
}

/// What importing one record did.
public enum DumpImportOutcome: Sendable, Hashable {
    case written
    case unchanged
    case refused(String)

    /// Why the record was refused; `nil` when it was not.
    public var refusal: String? {
        if case .refused(let reason) = self { return reason }
        return nil
    }

    /// Why a document that may not replace the stored one differs from it.
    public static let occupiedNamespace = DumpImportOutcome.refused(
        "its namespace already had documents before this import and this one differs from the stored one; --merge replaces it"
    )

    /// An outbox delivery or expansion whose notification the store does not have.
    public static let notificationMissing = DumpImportOutcome.refused("its notification is not in the store")

    /// A notification whose idempotency key another notification of the store has.
    public static let idempotencyKeyTaken = DumpImportOutcome.refused(
        "another notification of the store has its idempotency key")

    /// The outcome of an outbox row whose insert found one with the same key:
    /// unchanged when the stored one is the same, else refused.
    public static func existing<Row: Equatable>(_ stored: Row?, _ dumped: Row, what: String) -> DumpImportOutcome {
        stored == dumped
            ? .unchanged : .refused("the store already has this \(what), in another form; it is left as it is")
    }
}
