-- replica_sweep_gap: replica_sweep when the replicas are all the pool's and
-- some wait is located (pooled): gap_steps already holds their steps in
-- (rid, at_us) order, span_steps' steps and, for a located wait, a row at
-- the engine arrival that steps neither in_flight nor queue_depth. That row
-- splits a segment in two of the same state, which replica_segments sums
-- back into one, so the replicas' steps are not sorted a second time
-- (replica_events).
CREATE OR REPLACE VIEW replica_sweep AS
SELECT rid, lo, hi, in_flight, queue_depth FROM sweep('gap_steps');
