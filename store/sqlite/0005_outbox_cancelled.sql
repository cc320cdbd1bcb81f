-- Deliveries withdrawn before they were made: the device unsubscribed from the
-- agent or its installation logged out (state 'cancelled', last_reason
-- 'Unsubscribed'). SQLite cannot change a CHECK constraint, so the table is built
-- again with the same columns in the same order; GRDB runs a migration with foreign
-- keys off and checks them at its end.
CREATE TABLE outbox_deliveries_next (
    notification_id TEXT NOT NULL REFERENCES outbox_notifications (id) ON DELETE CASCADE,
    installation_id TEXT NOT NULL,
    token_kind TEXT NOT NULL CHECK (token_kind IN ('apns', 'fcm')),
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
    PRIMARY KEY (notification_id, installation_id)
);

INSERT INTO outbox_deliveries_next SELECT * FROM outbox_deliveries;
DROP TABLE outbox_deliveries;
ALTER TABLE outbox_deliveries_next RENAME TO outbox_deliveries;

CREATE INDEX outbox_deliveries_by_state ON outbox_deliveries (state, next_attempt_at);
