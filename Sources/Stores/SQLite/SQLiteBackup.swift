import Foundation
import GRDB
import PushgateCore

/// A consistent copy of a SQLite store that may be serving (`pushgate backup`):
/// `VACUUM INTO` an empty file (one read transaction: a snapshot, the outbox with the
/// documents, while the gateway goes on writing), then checked with
/// `PRAGMA integrity_check`. The caller syncs the copy and renames it into place.
public enum SQLiteBackup {
    /// What the copy holds, for the command's summary.
    public struct Report: Sendable {
        public let bytes: Int64
        public let documents: Int
        public let devices: Int
        public let pendingDeliveries: Int
    }

    /// Copies the store at `source` into `copy`, a file that does not exist or is empty.
    public static func copy(from source: String, into copy: String) throws(DocumentStoreError) -> Report {
        guard FileManager.default.fileExists(atPath: source) else {
            throw .unavailable("no database at \(source)")
        }
        do {
            var configuration = Configuration()
            configuration.busyMode = .timeout(SQLiteDatabase.busyTimeout)
            let database = try DatabaseQueue(path: source, configuration: configuration)
            try database.inDatabase { db in
                guard
                    try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE name = 'documents')")
                        == true
                else { throw DocumentStoreError.unavailable("\(source) is not a Pushgate store (no documents table)") }
                try db.execute(sql: "VACUUM INTO ?", arguments: [copy])
            }
            try database.close()
            return try check(copy)
        } catch {
            if let error = error as? DocumentStoreError { throw error }
            throw .unavailable(SQLiteDatabase.describe(error))
        }
    }

    /// Whether `path` is a SQLite database with Pushgate's `documents` table (a store
    /// or a backup of one), read without changing it.
    public static func isPushgateDatabase(at path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        let header = (try? handle.read(upToCount: 16)) ?? Data()
        try? handle.close()
        guard header == Data("SQLite format 3\u{0}".utf8) else { return false }
        var configuration = Configuration()
        configuration.readonly = true
        guard let database = try? DatabaseQueue(path: path, configuration: configuration) else { return false }
        defer { try? database.close() }
        return
            (try? database.read { db in
                try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE name = 'documents')")
            }) == true
    }

    /// Opens the copy: one file (rollback journal, so no `-wal` beside it is needed),
    /// whole (`integrity_check`), and what it holds.
    private static func check(_ path: String) throws -> Report {
        let copy = try DatabaseQueue(path: path)
        defer { try? copy.close() }
        return try copy.inDatabase { db in
            try db.execute(sql: "PRAGMA journal_mode = DELETE")
            let problems = try String.fetchAll(db, sql: "PRAGMA integrity_check")
            guard problems == ["ok"] else {
                throw DocumentStoreError.corruptDocument(
                    "the copy failed integrity_check: \(problems.prefix(3).joined(separator: "; "))")
            }
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            return Report(
                bytes: (attributes[.size] as? NSNumber)?.int64Value ?? 0,
                documents: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM documents") ?? 0,
                devices: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM documents WHERE collection_id = 'devices'")
                    ?? 0,
                pendingDeliveries: try Int.fetchOne(
                    db, sql: "SELECT COUNT(*) FROM outbox_deliveries WHERE state = 'pending'") ?? 0)
        }
    }
}
