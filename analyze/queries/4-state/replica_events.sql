-- replica_events: span_steps sorted by replica, then instant, for replica_segments.
CREATE OR REPLACE TABLE replica_events AS
SELECT rid, at_us, d_in_flight, d_queue_depth FROM span_steps ORDER BY rid, at_us;
