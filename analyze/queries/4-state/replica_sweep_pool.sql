-- replica_sweep_pool: replica_sweep when the spans have one replica: its
-- segments are the pool's (pool_segments), so the second sort and sweep are skipped.
CREATE OR REPLACE VIEW replica_sweep AS
SELECT (SELECT rid FROM replica_ids) AS rid, lo, hi, in_flight, queue_depth FROM pool_segments;
