-- replica_segments: as pool_segments, for each replica (rid). The running sums are
-- taken over replica_events in (rid, t) order without partitioning: the steps of
-- every replica add up to 0 (each span's +1 has its −1 in the same replica), so a
-- replica's running sum starts at 0 where the previous one ends, and the segment
-- that would bridge two replicas is dropped.
CREATE OR REPLACE TEMP TABLE rseg AS
WITH run AS (
    SELECT rid, lag(rid) OVER () AS prev_rid, lag(t) OVER () AS lo, t AS hi,
           sum(di) OVER (ROWS UNBOUNDED PRECEDING) - di AS inf,
           sum(dq) OVER (ROWS UNBOUNDED PRECEDING) - dq AS qd
    FROM replica_events
)
SELECT rid, lo, hi, inf::BIGINT AS inf, qd::BIGINT AS qd FROM run
WHERE prev_rid = rid AND hi > lo AND (inf <> 0 OR qd <> 0);
