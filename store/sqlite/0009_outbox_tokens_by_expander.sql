-- An expansion's later pages no longer ask the store whether a token was met on an
-- earlier page: the expander keeps the tokens its pages stored in memory (and reads
-- them back from the deliveries when it takes an expansion over). The index by
-- (notification, token) took every page's tokens in random order; its upkeep cost
-- more than the rest of a page's write.
DROP INDEX outbox_deliveries_by_token;
