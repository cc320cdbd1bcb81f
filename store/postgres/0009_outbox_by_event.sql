-- An event's pushes found by the id it is looked up by (issue 75: eventStatus): the
-- caller's event_id, or the one the gateway made, kept in the content as trackingID
-- (the event's push, its reminders and its Live Activity step carry the same). Only
-- notifications that have one are indexed.
CREATE INDEX outbox_notifications_by_event
    ON outbox_notifications (server_key, (content ->> 'trackingID'))
    WHERE content ->> 'trackingID' IS NOT NULL;
