import Foundation
import GRDB
import PushgateCore

/// A consistent copy of a SQLite store that may be serving (`pushgate backup`):
/// `VACUUM INTO` a file beside the destination (one read transaction: a snapshot,
/// the outbox with the documents, while the gateway goes on writing), checked with
/// `PRAGMA integrity_check`, fsynced, then renamed over the destination, so that a
/// destination is always a whole backup, never half of one.
public enum SQLiteBackup {
    /// What the copy holds, for the command's summary.
    public struct Report: Sendable {
        public let destination: String
        public let bytes: Int64
        public let documents: Int
        public let devices: Int
        public let pendingDeliveries: Int
    }

    public static func copy(from source: String, to destination: String) throws(DocumentStoreError) -> Report {
        guard FileManager.default.fileExists(atPath: source) else {
            throw .unavailable("no database at \(source)")
        }
        let partial = destination + ".partial-\(ProcessInfo.processInfo.processIdentifier)"
        do {
            try? FileManager.default.removeItem(atPath: partial)
            var configuration = Configuration()
            configuration.busyMode = .timeout(SQLiteDatabase.busyTimeout)
            let database = try DatabaseQueue(path: source, configuration: configuration)
            try database.inDatabase { db in
                guard
                    try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE name = 'documents')")
                        == true
                else { throw DocumentStoreError.unavailable("\(source) is not a Pushgate store (no documents table)") }
                try db.execute(sql: "VACUUM INTO ?", arguments: [partial])
            }
            try database.close()
            // The copy holds what the store holds (device tokens): readable by whom the store is.
            if let mode = try FileManager.default.attributesOfItem(atPath: source)[.posixPermissions] {
                try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: partial)
            }
            let report = try check(partial, destination: destination)
            try syncToDisk(partial)
            guard rename(partial, destination) == 0 else {
                throw DocumentStoreError.unavailable("cannot rename the copy to \(destination): \(errnoText())")
            }
            try syncToDisk(
                (destination as NSString).deletingLastPathComponent.isEmpty
                    ? "." : (destination as NSString).deletingLastPathComponent)
            return report
        } catch {
            try? FileManager.default.removeItem(atPath: partial)
            if let error = error as? DocumentStoreError { throw error }
            throw .unavailable(SQLiteDatabase.describe(error))
        }
    }

    /// Opens the copy: one file (rollback journal, so no `-wal` beside it is needed),
    /// whole (`integrity_check`), and what it holds.
    private static func check(_ path: String, destination: String) throws -> Report {
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
                destination: destination,
                bytes: (attributes[.size] as? NSNumber)?.int64Value ?? 0,
                documents: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM documents") ?? 0,
                devices: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM documents WHERE collection_id = 'devices'")
                    ?? 0,
                pendingDeliveries: try Int.fetchOne(
                    db, sql: "SELECT COUNT(*) FROM outbox_deliveries WHERE state = 'pending'") ?? 0)
        }
    }

    /// `VACUUM INTO` does not sync what it wrote; the rename must not reach the disk before the data.
    private static func syncToDisk(_ path: String) throws {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw DocumentStoreError.unavailable("cannot open \(path): \(errnoText())") }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else {
            throw DocumentStoreError.unavailable("cannot sync \(path) to disk: \(errnoText())")
        }
    }

    private static func errnoText() -> String {
        String(cString: strerror(errno))
    }
}
