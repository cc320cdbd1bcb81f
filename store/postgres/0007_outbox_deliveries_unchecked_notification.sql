-- A delivery's notification is no longer checked by a foreign key: the check is a
-- trigger that looks the notification up, and locks its row, for every delivery
-- stored; a profile of a 100,000-device fan-out put it at a fifth of PostgreSQL's
-- time. Every write of deliveries names a notification it has written or read in
-- the same statement or transaction (an enqueue writes the notification first; an
-- expansion's page joins the notification's row; an import checks that it
-- exists), and a notification is deleted only once it has no delivery left
-- (cancel, prune), so no delivery is left without its notification.
ALTER TABLE outbox_deliveries DROP CONSTRAINT outbox_deliveries_notification_id_fkey;
