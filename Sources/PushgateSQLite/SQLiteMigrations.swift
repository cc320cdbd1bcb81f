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
        ),
        Migration(
            identifier: "0002_outbox",
            sql: """
                -- The outbox: every accepted notification and its per-device deliveries, written
                -- before the trigger answers, so that a crash or a restart loses nothing.
                -- Times are milliseconds since 1970 (UTC).
                CREATE TABLE outbox_notifications (
                    id TEXT NOT NULL PRIMARY KEY,
                    server_key TEXT NOT NULL,
                    agent_key TEXT NOT NULL,
                    -- The notification (title, body, data, collapse id, sound), JSON.
                    content TEXT NOT NULL CHECK (json_valid(content)),
                    created_at INTEGER NOT NULL,
                    -- After this a delivery not yet made is given up (the APNs time to live).
                    expires_at INTEGER NOT NULL,
                    -- Set for triggers that must not notify twice (Idempotency-Key, or
                    -- conversation_id with finished_at); unique per server.
                    idempotency_key TEXT
                );

                CREATE UNIQUE INDEX outbox_notifications_by_idempotency_key
                    ON outbox_notifications (server_key, idempotency_key) WHERE idempotency_key IS NOT NULL;

                CREATE TABLE outbox_deliveries (
                    notification_id TEXT NOT NULL REFERENCES outbox_notifications (id) ON DELETE CASCADE,
                    -- The device: …/devices/{installation_id} under the notification's agent.
                    installation_id TEXT NOT NULL,
                    token_kind TEXT NOT NULL CHECK (token_kind IN ('apns', 'fcm')),
                    token TEXT NOT NULL,
                    -- apns-id: the same on every try.
                    push_id TEXT NOT NULL,
                    state TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'failed')),
                    attempts INTEGER NOT NULL DEFAULT 0,
                    enqueued_at INTEGER NOT NULL,
                    next_attempt_at INTEGER NOT NULL,
                    -- Who is sending it, and until when; a lease that ran out is free to claim.
                    lease_owner TEXT,
                    lease_until INTEGER,
                    last_reason TEXT,
                    removed INTEGER NOT NULL DEFAULT 0 CHECK (removed IN (0, 1)),
                    finished_at INTEGER,
                    PRIMARY KEY (notification_id, installation_id)
                );

                -- Due work, soonest first (what workers claim), and the counts per state. One
                -- index rather than two: every delivery is written twice (stored, then finished)
                -- and each index costs on both.
                CREATE INDEX outbox_deliveries_by_state ON outbox_deliveries (state, next_attempt_at);

                """
        ),
        Migration(
            identifier: "0003_outbox_by_agent",
            sql: """
                -- Reminders know the notification they remind of; diagnostics find an agent's
                -- latest notifications without a scan.
                ALTER TABLE outbox_notifications ADD COLUMN reminder_of TEXT;

                CREATE INDEX outbox_notifications_by_agent ON outbox_notifications (server_key, agent_key, created_at);

                """
        ),
        Migration(
            identifier: "0004_outbox_coalescing",
            sql: """
                -- Coalescing (PUSHGATE_COALESCE_WINDOW). The notification that opened a window
                -- holds its key until held_until (its deliveries are due then) and counts the
                -- events it carries; each event folded into it keeps a row of its own, without
                -- deliveries, pointing at it (so that its idempotency key is still recognised).
                ALTER TABLE outbox_notifications ADD COLUMN coalesce_key TEXT;
                ALTER TABLE outbox_notifications ADD COLUMN held_until INTEGER;
                ALTER TABLE outbox_notifications ADD COLUMN coalesced_count INTEGER;
                ALTER TABLE outbox_notifications ADD COLUMN coalesced_into TEXT;

                CREATE INDEX outbox_notifications_by_coalesce_key
                    ON outbox_notifications (coalesce_key, held_until) WHERE coalesce_key IS NOT NULL;

                """
        ),
    ]
}
