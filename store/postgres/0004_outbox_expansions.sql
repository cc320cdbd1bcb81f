-- Notifications whose deliveries are made page by page from their agent's devices
-- while the first pages are being sent (an agent too big to write a row per device
-- before answering). A row lives until the last page is stored; whoever holds its
-- lease expands it; a lease that ran out (its process died) is free to claim, and the
-- taker goes on after `cursor`, the last installation id expanded.
CREATE TABLE outbox_expansions (
    notification_id TEXT NOT NULL PRIMARY KEY REFERENCES outbox_notifications (id) ON DELETE CASCADE,
    -- Devices registered after this are left out.
    accepted_at BIGINT NOT NULL,
    -- The caller's exclusions: {"installation_id": …, "tokens": […]}.
    selection JSONB NOT NULL,
    cursor TEXT COLLATE "C",
    -- Pages stored so far: the statistics are refreshed at 10, 100, 1,000, … pages.
    pages INTEGER NOT NULL DEFAULT 0,
    lease_owner TEXT,
    lease_until BIGINT
);

-- A phone registered twice (a reinstall keeps its token) is found again on a later
-- page: a page's deliveries skip the tokens the notification has already.
CREATE INDEX outbox_deliveries_by_token ON outbox_deliveries (notification_id, token);
