import ArgumentParser
import Foundation
import PushgateCore
import PushgatePostgres
import PushgateSQLite

struct BackupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy a live SQLite store: consistent, checked, synced.",
        discussion: """
            The copy is made with VACUUM INTO (one snapshot: the documents with the outbox), checked with \
            PRAGMA integrity_check, synced, then renamed over FILE, so FILE is always a whole backup; \
            it is readable by its owner only (mode 0600). An existing FILE is replaced only when it is \
            a Pushgate backup. \
            With a directory, the file is named pushgate-<UTC time>.sqlite inside it. \
            To restore: stop the gateway, copy the backup over the store's file, remove the store's \
            -wal and -shm files, start the gateway. For PostgreSQL, use pg_dump (exit status 2).
            """
    )

    @OptionGroup var database: DatabaseOptions

    @Option(name: .customLong("to"), help: "The backup file, or a directory to write a dated file in.")
    var destination: String

    func run() async throws {
        if PostgresURL.isPostgres(try database.location()) {
            StandardError.write(
                "pushgate backup copies a SQLite store; for PostgreSQL use pg_dump, e.g. "
                    + "pg_dump --format=custom --file=pushgate.pgdump \"$PUSHGATE_DATABASE\"\n")
            throw ExitCode(2)
        }
        let source = try database.existing()
        let target = Self.file(for: destination, at: Date())
        guard (target as NSString).standardizingPath != (source as NSString).standardizingPath else {
            throw ValidationError("--to names the store itself")
        }
        // Replacing a file is for an earlier backup only: a mistyped --to must not turn
        // a text file (or anything else) into a database.
        if FileManager.default.fileExists(atPath: target), !SQLiteBackup.isPushgateDatabase(at: target) {
            throw ValidationError("--to \(target) exists and is not a Pushgate backup; remove it or name another file")
        }
        let started = Date()
        // Owner-only, whatever the store's mode: the copy holds every device token.
        let copy = try PartialFile(creating: target, mode: 0o600)
        let report: SQLiteBackup.Report
        do {
            report = try SQLiteBackup.copy(from: source, into: copy.partial)
            try copy.commit()
        } catch let error as DocumentStoreError {
            copy.discard()
            throw CommandFailure("backup failed: \(error.detail)")
        } catch {
            copy.discard()
            throw error
        }
        print(
            "backup: \(target), \(report.bytes.formatted(.byteCount(style: .file))), "
                + "\(report.documents) documents (\(report.devices) devices), "
                + "\(report.pendingDeliveries) pending deliveries, integrity ok, "
                + "in \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
    }

    /// `destination`, or a dated file inside it when it is a directory.
    static func file(for destination: String, at date: Date) -> String {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: destination, isDirectory: &isDirectory), isDirectory.boolValue
        else { return destination }
        let stamp = RFC3339.format(date).prefix(19).replacingOccurrences(of: ":", with: "")
        return (destination as NSString).appendingPathComponent("pushgate-\(stamp)Z.sqlite")
    }
}
