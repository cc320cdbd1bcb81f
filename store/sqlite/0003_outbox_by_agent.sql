-- Reminders know the notification they remind of; diagnostics find an agent's
-- latest notifications without a scan.
ALTER TABLE outbox_notifications ADD COLUMN reminder_of TEXT;

CREATE INDEX outbox_notifications_by_agent ON outbox_notifications (server_key, agent_key, created_at);
