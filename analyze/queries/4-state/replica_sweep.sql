-- replica_sweep: each replica's (rid) segments [lo, hi) of constant in_flight
-- (in_flight) and queue_depth (queue_depth), as pool_segments makes the pool's, for
-- replica_segments to sum. A view: its one reader runs it once.
--
-- The sweep runs over replica_events in (rid, t) order without partitioning:
-- the steps of every replica add up to 0 (each span's +1 has its −1 in the
-- same replica), so a replica's running sum starts at 0 where the previous one
-- ends: the segment that would bridge two replicas has in_flight and
-- queue_depth 0, and is dropped with every other such segment.
CREATE OR REPLACE VIEW replica_sweep AS
SELECT rid, lo, hi, in_flight, queue_depth FROM sweep('replica_events');
