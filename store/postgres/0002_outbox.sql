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
