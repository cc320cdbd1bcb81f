-- Deliveries withdrawn before they were made: the device unsubscribed from the
-- agent or its installation logged out (state 'cancelled', last_reason 'Unsubscribed').
ALTER TABLE outbox_deliveries
    DROP CONSTRAINT outbox_deliveries_state_check,
    ADD CONSTRAINT outbox_deliveries_state_check CHECK (state IN ('pending', 'delivered', 'failed', 'cancelled'));
