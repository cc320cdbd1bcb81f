import Foundation

/// The PostgreSQL schema's migrations, in order. Each is the text of a file in
/// `store/postgres/`, embedded at build time by the EmbedFiles plugin
/// (`Plugins/`), so that the binary runs with no repository files beside it.
public enum PostgresMigrations {
    public struct Migration: Sendable {
        /// The file name without `.sql`, e.g. `0001_documents`; also the id recorded
        /// in `pushgate_migrations` once applied.
        public let identifier: String
        public let sql: String

        /// The statements, one by one: PostgreSQL prepares one statement at a time
        /// (postgres-nio speaks the extended query protocol). Comment lines are left
        /// out, and a statement ends with the `;` that ends its line — the files keep
        /// to that (no `;` inside a literal).
        var statements: [String] {
            sql.split(separator: "\n")
                .filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("--") }
                .joined(separator: "\n")
                .components(separatedBy: ";\n")
                .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
                .map { $0.hasSuffix(";") ? String($0.dropLast()) : $0 }
                .filter { !$0.isEmpty }
        }
    }

    public static let all: [Migration] = EmbeddedMigrations.all.map {
        Migration(identifier: String($0.name.dropLast(".sql".count)), sql: $0.text)
    }
}
