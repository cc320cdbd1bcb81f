/// The store's schema migrations, in order. Each is the text of a file in
/// `store/sqlite/`, embedded at build time by the EmbedFiles plugin
/// (`Plugins/`), so that the binary runs with no repository files beside it.
public enum SQLiteMigrations {
    public struct Migration: Sendable {
        /// The file name without `.sql`, e.g. `0001_documents`; also the id
        /// recorded in the database once applied.
        public let identifier: String
        public let sql: String
    }

    public static let all: [Migration] = EmbeddedMigrations.all.map {
        Migration(identifier: String($0.name.dropLast(".sql".count)), sql: $0.text)
    }
}
