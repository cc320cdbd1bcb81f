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
