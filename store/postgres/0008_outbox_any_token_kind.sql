-- A delivery's token kind names any push service (a service is a plug-in: its
-- module declares its id), so the table no longer lists them. A kind no installed
-- service has is failed by the routing with its reason (no_<kind>_provider), never
-- trapped on.
ALTER TABLE outbox_deliveries DROP CONSTRAINT outbox_deliveries_token_kind_check;
