-- Receipts from the phone (issue 75: POST /receipts): when the installation says
-- its push reached it (its Notification Service Extension, a service worker) and
-- when the person opened it; the first of each is kept.
ALTER TABLE outbox_deliveries ADD COLUMN delivered_receipt_at INTEGER;
ALTER TABLE outbox_deliveries ADD COLUMN opened_receipt_at INTEGER;
