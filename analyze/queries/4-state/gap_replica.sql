-- gap_replica: each pool replica's (rid) segments [lo, hi) with requests
-- queued: in flight (inf), queued (qd), in its engine's queue (eq) and at the
-- gateway on their way to it (gq), with its cap. As sweep does, in the
-- stored order of gap_steps, counting rows: the state on [lo, hi) is the sum
-- of the steps before the row that opens hi, so the steps at one instant
-- apply together; every count of a replica sums to 0, so the segment that
-- would bridge two replicas has qd = 0 and is dropped with every segment
-- without a queue, which no cause needs.
CREATE OR REPLACE TABLE gap_replica AS
WITH run AS (
    SELECT rid, lag(at_us) OVER () AS lo, at_us AS hi,
           count(*) FILTER (WHERE di = 1) OVER w - count(*) FILTER (WHERE di = -1) OVER w - di AS inf,
           count(*) FILTER (WHERE dq = 1) OVER w - count(*) FILTER (WHERE dq = -1) OVER w - dq AS qd,
           count(*) FILTER (WHERE de = 1) OVER w - count(*) FILTER (WHERE de = -1) OVER w - de AS eq,
           count(*) FILTER (WHERE dg = 1) OVER w - count(*) FILTER (WHERE dg = -1) OVER w - dg AS gq
    FROM gap_steps
    WINDOW w AS (ROWS UNBOUNDED PRECEDING)
)
SELECT run.rid, lo, hi, inf, qd, eq, gq, caps.cap
FROM run JOIN replica_ids USING (rid) JOIN caps USING (rep)
WHERE hi > lo AND qd > 0;
