import Foundation
import PushgatePostgres
import PushgateSQLite
import Testing

/// The migrations each store embeds (so the binary needs no repository files) are
/// the files in `store/`, in order.
@Suite("Embedded migrations")
struct EmbeddedMigrationsTests {
    enum Folder: String, CaseIterable, CustomTestStringConvertible {
        case sqlite, postgres

        var testDescription: String { "store/\(rawValue)" }

        /// (identifier, SQL) of each embedded migration, in order.
        var embedded: [(identifier: String, sql: String)] {
            switch self {
            case .sqlite: SQLiteMigrations.all.map { ($0.identifier, $0.sql) }
            case .postgres: PostgresMigrations.all.map { ($0.identifier, $0.sql) }
            }
        }
    }

    @Test("the embedded migrations are the files in store/, in order", arguments: Folder.allCases)
    func migrationsMatchFiles(folder: Folder) throws {
        let directory = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("store/\(folder.rawValue)")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".sql") }.sorted()
        #expect(files == folder.embedded.map { $0.identifier + ".sql" })
        for migration in folder.embedded {
            let text = try String(
                contentsOf: directory.appendingPathComponent(migration.identifier + ".sql"), encoding: .utf8)
            #expect(text == migration.sql, "\(migration.identifier) differs from its file")
        }
    }
}
