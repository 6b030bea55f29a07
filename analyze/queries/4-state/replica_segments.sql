-- replica_segments: the segments of each replica (rid; replica_sweep), summed
-- straight away for the two readers, which need no segment one by one ($t0,
-- $t1 in µs): replicas takes each replica's largest in_flight over all its
-- segments, replica_state the measures over the run extent. So the segments
-- are grouped by (rid, inf, queued = qd > 0), with their lengths clipped to the
-- extent summed (len) and weighted by qd (len_qd); a group outside the extent
-- has NULL sums. Every measure of replica_state is a sum of these, exactly
-- (integers): Σ len·inf over a group is inf · len.
CREATE OR REPLACE TABLE replica_segments AS
WITH clipped AS (
    SELECT rid, inf, qd,
           CASE WHEN hi > $t0::BIGINT AND lo < $t1::BIGINT
                THEN least(hi, $t1::BIGINT) - greatest(lo, $t0::BIGINT) END AS len
    FROM replica_sweep
)
SELECT rid, inf, qd > 0 AS queued, sum(len) AS len, sum(len * qd) AS len_qd
FROM clipped
GROUP BY ALL;
