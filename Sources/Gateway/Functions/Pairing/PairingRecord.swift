import Foundation
import PushgateCore

/// A pairing as the gateway keeps it (`servers/{serverKey}/pairings/{pairingId}`,
/// issue 82): open until its `expiresAt`, then as good as gone — every function
/// answers 404 `unknown_pairing` for it — until the expiry sweep deletes it.
enum PairingRecord {
    /// The 404 for a pairing that is not there, or no longer open.
    static let unknown = FunctionError(
        .notFound, "no open pairing with this pairing_id under this server (unknown, or expired)",
        field: "pairing_id", reason: "unknown_pairing")

    /// When `record` stops being open.
    static func expiresAt(_ record: Document) -> Date? {
        record.string(FieldName.expiresAt).flatMap(RFC3339.parse)
    }

    /// Whether `record` is open at `now`.
    static func isOpen(_ record: Document, at now: Date) -> Bool {
        expiresAt(record).map { $0 > now } ?? false
    }

    /// The open pairing at `path`, or the 404.
    static func open(at path: DocumentPath, in store: any DocumentStore, at now: Date) async throws -> Document {
        guard let record = try await store.document(at: path), isOpen(record, at: now) else { throw unknown }
        return record
    }

    /// Deletes the pairings, of every server, that closed before `now` (at most
    /// `limit` a call); answers how many.
    @discardableResult
    static func removeExpired(in store: any DocumentStore, at now: Date, limit: Int = 500) async throws -> Int {
        let expired = try await store.documents(
            inGroup: NamespacePaths.pairings, under: nil,
            where: .stringBefore(FieldName.expiresAt, RFC3339.format(now)), after: nil, limit: limit)
        guard !expired.isEmpty else { return 0 }
        // Only while it is still expired: never a pairing a later write reopened.
        try await store.commit(
            expired.compactMap { record in
                record.string(FieldName.expiresAt).map {
                    .delete(record.path, if: .fieldEquals(FieldName.expiresAt, .string($0)))
                }
            })
        return expired.count
    }
}
