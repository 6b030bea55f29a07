-- replica_segments: as pool_segments, for each replica (rid), summed straight
-- away for the two readers, which need no segment one by one ($1 t0, $2 t1 in
-- µs): replicas takes each replica's largest in_flight over all its segments,
-- replica_state the measures over the run extent. So the segments are grouped
-- by (rid, inf, queued = qd > 0), with their lengths clipped to the extent
-- summed (len) and weighted by qd (len_qd); a group outside the extent has
-- NULL sums. Every measure of replica_state is a sum of these, exactly
-- (integers): Σ len·inf over a group is inf · len.
--
-- The running sums are taken over replica_events in (rid, t) order without
-- partitioning: the steps of every replica add up to 0 (each span's +1 has its
-- −1 in the same replica), so a replica's running sum starts at 0 where the
-- previous one ends, and the segment that would bridge two replicas is dropped.
CREATE OR REPLACE TEMP TABLE rseg AS
WITH run AS (
    SELECT rid, lag(rid) OVER () AS prev_rid, lag(t) OVER () AS lo, t AS hi,
           sum(di) OVER (ROWS UNBOUNDED PRECEDING) - di AS inf,
           sum(dq) OVER (ROWS UNBOUNDED PRECEDING) - dq AS qd
    FROM replica_events
), seg AS (
    SELECT rid, lo, hi, inf::BIGINT AS inf, qd::BIGINT AS qd FROM run
    WHERE prev_rid = rid AND hi > lo AND (inf <> 0 OR qd <> 0)
), clipped AS (
    SELECT rid, inf, qd,
           CASE WHEN hi > $1::BIGINT AND lo < $2::BIGINT
                THEN least(hi, $2::BIGINT) - greatest(lo, $1::BIGINT) END AS len
    FROM seg
)
SELECT rid, inf, qd > 0 AS queued, sum(len) AS len, sum(len * qd) AS len_qd
FROM clipped
GROUP BY ALL;
