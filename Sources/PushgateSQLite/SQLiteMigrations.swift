/// The store's schema migrations, in order. Each is the text of a file in
/// `store/sqlite/`, embedded so that the binary runs with no repository files
/// beside it; a test checks that the two agree.
public enum SQLiteMigrations {
    public struct Migration: Sendable {
        /// The file name without `.sql`, e.g. `0001_documents`; also the id
        /// recorded in the database once applied.
        public let identifier: String
        public let sql: String
    }

    public static let all: [Migration] = [
        Migration(
            identifier: "0001_documents",
            sql: """
                -- Documents addressed by their full path, Firestore style:
                -- servers/{serverKey}/agents/{agentKey}/devices/{installationId}
                CREATE TABLE documents (
                    -- The full path, segments joined by '/'.
                    path TEXT NOT NULL PRIMARY KEY,
                    -- The path of the collection that holds the document.
                    parent TEXT NOT NULL,
                    -- The last segment of parent ('devices'): what a collection-group query names.
                    collection_id TEXT NOT NULL,
                    -- The last segment of path.
                    document_id TEXT NOT NULL,
                    -- The document's top-level fields, a JSON object.
                    fields TEXT NOT NULL CHECK (json_valid(fields) AND json_type(fields) = 'object')
                ) WITHOUT ROWID;

                -- Lists a collection in document-id order without a scan.
                CREATE INDEX documents_by_parent ON documents (parent, document_id);

                -- Finds the documents of a collection group (by id, or narrowed by a field) without a scan.
                CREATE INDEX documents_by_group ON documents (collection_id, document_id);

                """
        )
    ]
}
