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
