-- replica_count: how many replicas the spans name (replica_ids); with one,
-- its segments are the pool's (replica_sweep_pool).
SELECT count(*) FROM replica_ids;
