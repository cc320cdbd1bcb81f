-- A delivery's token kind names any push service (a service is a plug-in: its
-- module declares its id), so the table no longer lists them: the CHECK that held
-- it to 'apns' and 'fcm' goes. A kind no installed service has is failed by the
-- routing with its reason (no_<kind>_provider), never trapped on. SQLite cannot
-- drop a CHECK constraint, so the table is built again with the same columns in
-- the same order (as 0005 did), and its two partial indexes with it; GRDB runs a
-- migration with foreign keys off and checks them at its end.
CREATE TABLE outbox_deliveries_next (
    notification_id TEXT NOT NULL REFERENCES outbox_notifications (id) ON DELETE CASCADE,
    installation_id TEXT NOT NULL,
    token_kind TEXT NOT NULL,
    token TEXT NOT NULL,
    push_id TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'failed', 'cancelled')),
    attempts INTEGER NOT NULL DEFAULT 0,
    enqueued_at INTEGER NOT NULL,
    next_attempt_at INTEGER NOT NULL,
    lease_owner TEXT,
    lease_until INTEGER,
    last_reason TEXT,
    removed INTEGER NOT NULL DEFAULT 0 CHECK (removed IN (0, 1)),
    finished_at INTEGER,
    route TEXT,
    PRIMARY KEY (notification_id, installation_id)
);

INSERT INTO outbox_deliveries_next SELECT * FROM outbox_deliveries;
DROP TABLE outbox_deliveries;
ALTER TABLE outbox_deliveries_next RENAME TO outbox_deliveries;

CREATE INDEX outbox_deliveries_pending ON outbox_deliveries (next_attempt_at) WHERE state = 'pending';
CREATE INDEX outbox_deliveries_failed ON outbox_deliveries (enqueued_at) WHERE state = 'failed';
