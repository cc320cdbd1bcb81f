import Foundation
import GRDB
import PushgateCore

/// What `pushgate doctor` learns of a database file without changing it: whether
/// it exists, takes a write, and how many migrations a start would apply.
public struct SQLiteProbe: Sendable, Hashable {
    /// `false`: the file is missing and its folder lets a start create it.
    public let exists: Bool
    /// Migrations of `store/sqlite/` not yet applied to it (all of them when missing).
    public let pendingMigrations: Int

    /// Probes the database at `path`: takes the write lock and gives it back at once
    /// (`BEGIN IMMEDIATE`, `ROLLBACK`), applies no migration, creates no file.
    public init(path: String) throws(DocumentStoreError) {
        guard FileManager.default.fileExists(atPath: path) else {
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
            guard FileManager.default.isWritableFile(atPath: folder) else {
                throw .unavailable("\(path) does not exist and its folder \(folder) is not writable")
            }
            exists = false
            pendingMigrations = SQLiteMigrations.all.count
            return
        }
        var configuration = Configuration()
        configuration.busyMode = .timeout(2)
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            let applied = try queue.inDatabase { db in
                try db.execute(sql: "BEGIN IMMEDIATE")
                defer { try? db.execute(sql: "ROLLBACK") }
                return try SQLiteDatabase.migrator.appliedIdentifiers(db)
            }
            try queue.close()
            exists = true
            pendingMigrations = SQLiteMigrations.all.count { !applied.contains($0.identifier) }
        } catch {
            throw .unavailable("\(path): \(SQLiteDatabase.describe(error))")
        }
    }
}
