-- state_events: span_steps sorted by instant, for the pool sweep (pool_segments).
CREATE OR REPLACE TABLE state_events AS
SELECT at_us, d_in_flight, d_queue_depth FROM span_steps ORDER BY at_us;
