-- Only the deliveries still to be made, and those that failed, are looked up by
-- state: claims and the pending counts read the pending ones, the outbox's gauge
-- counts the failed ones. The index by (state, next_attempt_at) held every
-- delivery, so each page of a fan-out, whose deliveries are stored made, paid a
-- third B-tree insert a row (a sixth of the page's store) for entries nothing
-- reads. Two partial indexes take their place; a delivered or cancelled row is in
-- neither. (Statements name the state as a literal: SQLite uses a partial index
-- only when the query's own terms imply the index's.)
DROP INDEX outbox_deliveries_by_state;
CREATE INDEX outbox_deliveries_pending ON outbox_deliveries (next_attempt_at) WHERE state = 'pending';
CREATE INDEX outbox_deliveries_failed ON outbox_deliveries (enqueued_at) WHERE state = 'failed';
