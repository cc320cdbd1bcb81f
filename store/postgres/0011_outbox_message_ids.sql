-- The push service's name for a push it took (issue 75's timeline): FCM's message
-- `name`, a Web Push service's `Location`. NULL when the service named none, or
-- names it by the push's own id (APNs' apns-id is push_id).
ALTER TABLE outbox_deliveries ADD COLUMN message_id TEXT;
