-- gap_replica: each pool replica's (rid) segments [lo, hi) with requests
-- queued: in flight (in_flight), queued (queue_depth), in its engine's queue (eq) and at the
-- gateway on their way to it (gq), with its cap. As sweep does, in the
-- stored order of gap_steps, counting rows: the state on [lo, hi) is the sum
-- of the steps before the row that opens hi, so the steps at one instant
-- apply together; every count of a replica sums to 0, so the segment that
-- would bridge two replicas has queue_depth = 0 and is dropped with every segment
-- without a queue, which no cause needs.
CREATE OR REPLACE TABLE gap_replica AS
WITH run AS (
    SELECT rid, lag(at_us) OVER () AS lo, at_us AS hi,
           count(*) FILTER (WHERE d_in_flight = 1) OVER w - count(*) FILTER (WHERE d_in_flight = -1) OVER w - d_in_flight AS in_flight,
           count(*) FILTER (WHERE d_queue_depth = 1) OVER w - count(*) FILTER (WHERE d_queue_depth = -1) OVER w - d_queue_depth AS queue_depth,
           count(*) FILTER (WHERE d_engine_queue = 1) OVER w - count(*) FILTER (WHERE d_engine_queue = -1) OVER w - d_engine_queue AS eq,
           count(*) FILTER (WHERE d_gateway_queue = 1) OVER w - count(*) FILTER (WHERE d_gateway_queue = -1) OVER w - d_gateway_queue AS gq
    FROM gap_steps
    WINDOW w AS (ROWS UNBOUNDED PRECEDING)
)
SELECT run.rid, lo, hi, in_flight, queue_depth, eq, gq, caps.cap
FROM run JOIN replica_ids USING (rid) JOIN caps USING (rep)
WHERE hi > lo AND queue_depth > 0;
