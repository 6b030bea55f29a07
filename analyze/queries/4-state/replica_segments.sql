-- replica_segments: the segments of each replica (rid; replica_sweep), summed
-- straight away for the two readers, which need no segment one by one ($t0,
-- $t1 in µs): replicas takes each replica's largest in_flight over all its
-- segments, replica_state the measures over the run extent. So the segments
-- are grouped by (rid, in_flight, queued = queue_depth > 0), with their lengths clipped to the
-- extent summed (len) and weighted by queue_depth (len_qd); a group outside the extent
-- has NULL sums. Every measure of replica_state is a sum of these, exactly
-- (integers): Σ len·in_flight over a group is in_flight · len.
CREATE OR REPLACE TABLE replica_segments AS
WITH clipped AS (
    SELECT rid, in_flight, queue_depth,
           CASE WHEN hi > $t0::BIGINT AND lo < $t1::BIGINT
                THEN least(hi, $t1::BIGINT) - greatest(lo, $t0::BIGINT) END AS len
    FROM replica_sweep
)
SELECT rid, in_flight, queue_depth > 0 AS queued, sum(len) AS len, sum(len * queue_depth) AS len_qd
FROM clipped
GROUP BY ALL;
