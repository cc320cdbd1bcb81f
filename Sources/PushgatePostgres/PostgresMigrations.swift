import Foundation

/// The PostgreSQL schema's migrations, in order. Each is the text of a file in
/// `store/postgres/`, embedded so that the binary runs with no repository files
/// beside it; a test checks that the two agree.
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

    public static let all: [Migration] = [
        Migration(
            identifier: "0001_documents",
            sql: """
                -- Documents addressed by their full path, Firestore style:
                -- servers/{serverKey}/agents/{agentKey}/devices/{installationId}
                -- Text columns use the "C" collation: byte order, as SQLite sorts, whatever the
                -- database's locale.
                CREATE TABLE documents (
                    -- The full path, segments joined by '/'.
                    path TEXT COLLATE "C" NOT NULL PRIMARY KEY,
                    -- The path of the collection that holds the document.
                    parent TEXT COLLATE "C" NOT NULL,
                    -- The last segment of parent ('devices'): what a collection-group query names.
                    collection_id TEXT COLLATE "C" NOT NULL,
                    -- The last segment of path.
                    document_id TEXT COLLATE "C" NOT NULL,
                    -- The document's top-level fields, a JSON object.
                    fields JSONB NOT NULL CHECK (jsonb_typeof(fields) = 'object')
                );

                -- Lists a collection in document-id order without a scan.
                CREATE INDEX documents_by_parent ON documents (parent, document_id);

                -- Finds the documents of a collection group by id, and counts them, without a scan.
                CREATE INDEX documents_by_group ON documents (collection_id, document_id);

                -- Narrows a collection-group query by a field's value (fields @> '{"token": "…"}').
                CREATE INDEX documents_by_field ON documents USING GIN (fields jsonb_path_ops);

                """
        ),
        Migration(
            identifier: "0002_outbox",
            sql: """
                -- The outbox: every accepted notification and its per-device deliveries, written
                -- before the trigger answers, so that a crash or a restart loses nothing. Several
                -- gateway processes share it: deliveries are claimed with leases
                -- (FOR UPDATE SKIP LOCKED), and a lease that ran out is free to claim again.
                -- Times are milliseconds since 1970 (UTC).
                CREATE TABLE outbox_notifications (
                    id TEXT NOT NULL PRIMARY KEY,
                    server_key TEXT NOT NULL,
                    agent_key TEXT NOT NULL,
                    -- The notification (title, body, data, collapse id, sound).
                    content JSONB NOT NULL,
                    created_at BIGINT NOT NULL,
                    -- After this a delivery not yet made is given up (the APNs time to live).
                    expires_at BIGINT NOT NULL,
                    -- Set for triggers that must not notify twice; unique per server, across processes.
                    idempotency_key TEXT,
                    -- A reminder knows the notification it reminds of.
                    reminder_of TEXT,
                    -- Coalescing: the notification that opened a window holds its key until
                    -- held_until and counts the events it carries; an event folded into it keeps a
                    -- row of its own, without deliveries, pointing at it.
                    coalesce_key TEXT,
                    held_until BIGINT,
                    coalesced_count INTEGER,
                    coalesced_into TEXT
                );

                CREATE UNIQUE INDEX outbox_notifications_by_idempotency_key
                    ON outbox_notifications (server_key, idempotency_key) WHERE idempotency_key IS NOT NULL;

                CREATE INDEX outbox_notifications_by_agent ON outbox_notifications (server_key, agent_key, created_at);

                CREATE INDEX outbox_notifications_by_coalesce_key
                    ON outbox_notifications (coalesce_key, held_until) WHERE coalesce_key IS NOT NULL;

                CREATE TABLE outbox_deliveries (
                    notification_id TEXT NOT NULL REFERENCES outbox_notifications (id) ON DELETE CASCADE,
                    -- The device: …/devices/{installation_id} under the notification's agent.
                    installation_id TEXT COLLATE "C" NOT NULL,
                    token_kind TEXT NOT NULL CHECK (token_kind IN ('apns', 'fcm')),
                    token TEXT NOT NULL,
                    -- apns-id: the same on every try.
                    push_id TEXT NOT NULL,
                    state TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'failed')),
                    attempts INTEGER NOT NULL DEFAULT 0,
                    enqueued_at BIGINT NOT NULL,
                    next_attempt_at BIGINT NOT NULL,
                    -- Who is sending it, and until when.
                    lease_owner TEXT,
                    lease_until BIGINT,
                    last_reason TEXT,
                    removed BOOLEAN NOT NULL DEFAULT FALSE,
                    finished_at BIGINT,
                    PRIMARY KEY (notification_id, installation_id)
                );

                -- What workers claim, soonest first: a pending delivery is claimable once it is due
                -- and its lease (if any) ran out, which is one value, so a claim reads only claimable
                -- rows even while a large fan-out is leased. Pending deliveries only: the index stays
                -- the size of the backlog.
                CREATE INDEX outbox_deliveries_claimable
                    ON outbox_deliveries ((greatest(next_attempt_at, coalesce(lease_until, 0)))) WHERE state = 'pending';

                -- Counts per state and pruning by age.
                CREATE INDEX outbox_deliveries_by_state ON outbox_deliveries (state, enqueued_at);

                """
        ),
    ]
}
